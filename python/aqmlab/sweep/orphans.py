"""Worker processes that die with their parent, however it dies (Ctrl-C, a crash, SIGKILL).

A worker of the process pool or of a Dask LocalCluster waits for work on pipes that its siblings
keep open, so it never sees its parent go: left alone it would wait forever, reparented to init.
Two guards, both armed with the parent's pid as the parent knew it (a worker that asked
``os.getppid()`` itself after its parent died would get init's pid and never notice):

- on Linux, the kernel's parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``, prctl(2)):
  the worker is killed the moment the thread that started it exits, parent killed or not;
- everywhere, a daemon thread that polls ``os.getppid()`` every ``POLL_S`` and exits the
  process once it differs from the parent's pid.

Arming happens once the worker runs our code; a parent that died before that is caught by the
first check, made right after arming. Process-pool workers are armed by the pool's initializer;
Dask workers by this module as a Dask *preload* (``dask_setup``), with the parent's pid in the
environment variable ``PARENT_PID_VARIABLE`` (Dask's nannies run in the sweep's process and
start the workers from its event-loop thread: they get only the polling guard, since the
parent-death signal follows the thread that started the process).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

POLL_S = 0.25
PARENT_PID_VARIABLE = "AQMLAB_SWEEP_PID"
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent(parent_pid: int, *, death_signal: bool = True) -> None:
    """Exit this process when ``parent_pid`` is no longer its parent (now, or whenever that happens).

    ``death_signal=False`` arms only the polling thread: for processes started by a thread that
    may end before the parent does (the parent-death signal follows the starting thread).
    """
    if death_signal and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the thread below still guards
            pass
    if os.getppid() != parent_pid:
        os._exit(1)
    threading.Thread(target=_watch, args=(parent_pid,), daemon=True, name="aqmlab-orphan-watch").start()


def _watch(parent_pid: int) -> None:
    while True:
        time.sleep(POLL_S)
        if os.getppid() != parent_pid:
            os._exit(1)


def dask_setup(worker: object) -> None:
    """Dask's preload hook, run as each worker of a LocalCluster starts."""
    parent = os.environ.get(PARENT_PID_VARIABLE, "")
    if parent.isdigit():
        die_with_parent(int(parent), death_signal=False)
