"""File writing that never leaves a half-written output behind."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one, never a part
    (see :func:`write_atomic`)."""
    write_atomic(path, lambda file: file.write_text(text, encoding="utf-8"))


def write_atomic(path: str | os.PathLike[str], write: Callable[[Path], object]) -> None:
    """Have ``write(file)`` write the contents of ``path`` so that readers see the old file or the
    whole new one, never a part: ``file`` is a temporary file beside ``path`` that then replaces it.

    A symlink is written through (its target is replaced, the link kept); a character device or a
    FIFO (``/dev/null``, a named pipe) is written to directly; any other kind of file is refused.

        The temporary file sits in the same directory, because ``os.replace`` is atomic only within
        one file system.
    """
    # Through symlinks: the link stays and its target gets the new text (a dangling link: created).
    target = Path(os.path.realpath(path))
    try:
        kind = target.stat().st_mode
    except FileNotFoundError:
        kind = None
    if kind is not None and not stat.S_ISREG(kind):
        if stat.S_ISCHR(kind) or stat.S_ISFIFO(kind):
            # /dev/null, /dev/stdout, a named pipe: written to as they are, never replaced by a file.
            write(target)
            return
        raise OSError(errno.EINVAL, "not a regular file, a character device or a FIFO (refusing to replace it)")
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(temporary))
        with open(temporary, "rb") as file:
            os.fsync(file.fileno())
        # mkstemp creates the file private (0600); give it the mode a plain open() would have.
        os.chmod(temporary, _existing_mode(target) or 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _existing_mode(path: Path) -> int | None:
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
