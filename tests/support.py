"""Paths and helpers shared by the tests."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = REPO_ROOT / "scenarios" / "examples" / "udp-dumbbell.toml"


def popen_with_ctrl_c(*args: Any, **kwargs: Any) -> subprocess.Popen[str]:
    """subprocess.Popen, the child taking Ctrl-C by default. A test run started in the
    background (``make test &``) has SIGINT ignored, a child inherits an ignored signal, and
    Python then installs no handler for it; a handled one is reset to the default at exec, so
    the parent handles it for the moment of the start."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(*args, **kwargs)
    finally:
        signal.signal(signal.SIGINT, previous)


def run_cli(*args: object, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    """`aqmlab ARGS...` in a fresh interpreter, as a user would run it."""
    return subprocess.run(
        [sys.executable, "-m", "aqmlab", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        check=False,
        text=True,
        timeout=600,
    )


def error_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return result.stderr.strip().splitlines()


def load_docs_script(name: str) -> ModuleType:
    """A script under docs/ (the diagnostic searches), imported as a module without running it."""
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py"), REPO_ROOT / "docs" / name)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
