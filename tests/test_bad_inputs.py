"""The catalogue of bad inputs (tests/bad_inputs/), through the CLI and the Python API.

Every scenario of the catalogue, and every sweep description of tests/bad_inputs/sweeps/, must be
refused with the message recorded in its expected.toml: `aqmlab validate` and `aqmlab run --out`
exit with status 2, print one or two lines naming the file (and line and field), no traceback,
and write no output file; aqmlab.load raises a ScenarioError carrying the same message. Files
that do not exist or cannot be read are made here. The CLI runs in-process for the whole
catalogue (it is the same `main` a user's process runs), and in real subprocesses for a sample.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

import aqmlab
from aqmlab import ScenarioError
from aqmlab.cli import main
from aqmlab.sweep import SweepError, SweepSpec, plan
from support import REPO_ROOT, run_cli

CATALOGUE = REPO_ROOT / "tests" / "bad_inputs"
EXPECTED = tomllib.loads((CATALOGUE / "expected.toml").read_text())
READER_REFUSES = EXPECTED.pop("cli")
SCENARIOS = sorted(EXPECTED.items()) + sorted(READER_REFUSES.items())
SWEEPS = sorted(tomllib.loads((CATALOGUE / "sweeps" / "expected.toml").read_text()).items())


def check_refusal(status: int, stderr: str, path: Path, message: str | list[str]) -> None:
    """Status 2, one or two lines, no traceback, 'aqmlab: error: PATH<message>'."""
    prefix, fragment = (message, "") if isinstance(message, str) else message
    lines = stderr.strip().splitlines()
    assert status == 2, stderr
    assert 1 <= len(lines) <= 2, stderr
    assert "Traceback" not in stderr
    assert lines[0].startswith(f"aqmlab: error: {path}{prefix}"), f"{lines[0]!r}\n expected {prefix!r}"
    assert fragment in lines[0]


def test_the_catalogues_are_whole():
    assert len(SCENARIOS) >= 100
    assert len(SWEEPS) >= 25
    listed = {name for name, _ in SCENARIOS} | {"expected.toml"}
    assert {p.name for p in CATALOGUE.iterdir() if p.is_file()} == listed
    assert {p.name for p in (CATALOGUE / "sweeps").iterdir()} == {name for name, _ in SWEEPS} | {"expected.toml"}


@pytest.mark.parametrize(("name", "message"), SCENARIOS)
def test_validate_refuses_with_the_message(name: str, message: str, capsys):
    path = CATALOGUE / name
    status = main(["validate", str(path)])
    captured = capsys.readouterr()
    check_refusal(status, captured.err, path, message)
    assert captured.out == ""


@pytest.mark.parametrize(("name", "message"), SCENARIOS)
def test_run_refuses_and_writes_nothing(name: str, message: str, tmp_path: Path, capsys):
    path = CATALOGUE / name
    out = tmp_path / "results.json"
    status = main(["run", str(path), "--out", str(out)])
    check_refusal(status, capsys.readouterr().err, path, message)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("name", "message"), SCENARIOS)
def test_the_api_raises_scenario_error_with_the_message(name: str, message: str):
    path = CATALOGUE / name
    with pytest.raises(ScenarioError) as error:
        aqmlab.load(path)
    assert str(error.value).startswith(f"{path}{message}")
    with pytest.raises(ScenarioError):
        aqmlab.run(path)


# --- files that are not there or cannot be read --------------------------------------------------


def unreadable_files(tmp_path: Path) -> list[tuple[Path, str]]:
    """(path, message after the path) for files that cannot be read at all."""
    cases = [(tmp_path / "missing.toml", ": cannot read: No such file or directory")]
    directory = tmp_path / "a_directory.toml"
    directory.mkdir()
    cases.append((directory, ": cannot read: Is a directory"))
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    cases.append((loop, ": cannot read: Too many levels of symbolic links"))
    dangling = tmp_path / "dangling.toml"
    dangling.symlink_to(tmp_path / "gone.toml")
    cases.append((dangling, ": cannot read: No such file or directory"))
    not_a_dir = tmp_path / "file.toml"
    not_a_dir.write_text("")
    cases.append((not_a_dir / "inside.toml", ": cannot read: Not a directory"))
    return cases


def test_files_that_cannot_be_read_are_refused_by_the_cli_and_the_api(tmp_path: Path, capsys):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for path, message in unreadable_files(tmp_path):
        status = main(["run", str(path), "--out", str(out_dir / "r.json")])
        check_refusal(status, capsys.readouterr().err, path, message)
        with pytest.raises(ScenarioError, match="cannot read"):
            aqmlab.load(path)
    assert list(out_dir.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_a_file_without_read_permission_is_refused(tmp_path: Path, capsys):
    path = tmp_path / "secret.toml"
    path.write_text((REPO_ROOT / "scenarios" / "examples" / "udp-dumbbell.toml").read_text())
    path.chmod(0)
    check_refusal(main(["validate", str(path)]), capsys.readouterr().err, path, ": cannot read: Permission denied")


def test_real_processes_exit_2_without_a_traceback_or_output(tmp_path: Path):
    """The same in fresh interpreters, as a user runs it: a sample of the catalogue."""
    out = tmp_path / "r.json"
    for name in ["not_toml.toml", "binary.toml", "red_min_th_above_max_th.toml", "link_count_huge.toml"]:
        message = dict(SCENARIOS)[name]
        path = CATALOGUE / name
        result = run_cli("run", path, "--out", out)
        check_refusal(result.returncode, result.stderr, path, message)
        assert result.stdout == ""
    result = run_cli("validate", tmp_path / "missing.toml")
    check_refusal(
        result.returncode, result.stderr, tmp_path / "missing.toml", ": cannot read: No such file or directory"
    )
    assert list(tmp_path.iterdir()) == []


# --- sweep descriptions --------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "message"), SWEEPS)
def test_sweep_refuses_bad_descriptions_before_creating_a_store(name: str, message, tmp_path: Path, capsys):
    path = CATALOGUE / "sweeps" / name
    store = tmp_path / "s.duckdb"
    status = main(["sweep", str(path), "--store", str(store), "--workers", "1", "--no-progress"])
    check_refusal(status, capsys.readouterr().err, path, message)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("name", "message"), SWEEPS)
def test_the_sweep_api_raises_sweep_error_a_scenario_error(name: str, message):
    path = CATALOGUE / "sweeps" / name
    prefix, fragment = (message, "") if isinstance(message, str) else message
    with pytest.raises(SweepError) as error:
        plan(SweepSpec.from_file(path))
    assert isinstance(error.value, ScenarioError)
    assert str(error.value).startswith(f"{path}{prefix}") and fragment in str(error.value)


def test_a_sweep_description_that_cannot_be_read(tmp_path: Path, capsys):
    for path, message in unreadable_files(tmp_path):
        status = main(["sweep", str(path), "--store", str(tmp_path / "s.duckdb")])
        check_refusal(status, capsys.readouterr().err, path, message)
    assert not (tmp_path / "s.duckdb").exists()
