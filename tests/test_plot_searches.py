"""docs/plot_searches.py draws the searches' figure from their outputs, and refuses a missing one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import REPO_ROOT


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False)


def test_the_figure_is_drawn_from_small_searches(tmp_path: Path) -> None:
    capped, uncapped, choke = tmp_path / "capped.jsonl", tmp_path / "uncapped.jsonl", tmp_path / "choke.jsonl"
    small = ("--models", "2", "--seeds", "1", "--workers", "1")
    for args in (
        ("docs/dks_jk_model_search.py", *small, "--out", str(capped)),
        ("docs/dks_jk_model_search.py", *small, "--uncapped", "--out", str(uncapped)),
        ("docs/choke_table1_search.py", *small, "--out", str(choke)),
    ):
        assert run(*args).returncode == 0, args
    figure = tmp_path / "searches.png"
    done = run("docs/plot_searches.py", str(capped), str(uncapped), str(choke), "--out", str(figure))
    assert done.returncode == 0, done.stderr
    assert figure.stat().st_size > 10_000


def test_a_missing_search_output_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "none.jsonl"
    done = run("docs/plot_searches.py", str(missing), str(missing), str(missing))
    assert done.returncode == 2 and f"{missing}: no such file" in done.stderr
