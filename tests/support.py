"""Paths and helpers shared by the tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = REPO_ROOT / "scenarios" / "examples" / "udp-dumbbell.toml"


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
