"""The build identity of a run: the aqmlab version and a hash of the compiled core that computed it.

Two builds of one version (a rebuilt core) can compute different numbers; a store records the
identity with each run so that a sweep never mixes them silently. Only the core counts: a run's
numbers are the core's results for the scenario the core expanded, and what the Python package
does to the input before (overrides, a dict turned into TOML) is in the scenario's hash already.
So an edit of a Python module (a plot, the CLI) in a development checkout does not make a stored
sweep unresumable; an edit of the core, once rebuilt, does.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from aqmlab import _core


@functools.cache
def build_identity() -> str:
    """'VERSION+HASH': the version and a SHA-256 (first 12 hex digits) of the compiled core, so that
    two builds of one version are told apart."""
    try:
        core = Path(_core.__file__).read_bytes()
    except OSError:  # unreadable: the version alone still counts
        core = b""
    return f"{_core.version()}+{hashlib.sha256(core).hexdigest()[:12]}"
