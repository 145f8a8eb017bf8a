"""The build identity of a run: the aqmlab version and a hash of the code that computed it.

Two builds of one version (a rebuilt core, an edited Python module) can compute different
numbers; a store records the identity with each run so that a sweep never mixes them silently.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from aqmlab import _core


@functools.cache
def build_identity() -> str:
    """'VERSION+HASH': the version and a SHA-256 (first 12 hex digits) of the compiled core and of
    every Python source of the package, so that two builds of one version are told apart."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    files = [Path(_core.__file__).resolve(), *sorted(package.rglob("*.py"))]
    for path in files:
        name = path.name if path.suffix != ".py" else path.relative_to(package).as_posix()
        digest.update(name.encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:  # unreadable: the name alone still counts
            pass
        digest.update(b"\0")
    return f"{_core.version()}+{digest.hexdigest()[:12]}"
