"""Inputs that are not scenario files at all, and Ctrl-C while a store opens."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import pytest

from aqmlab.cli import main
from aqmlab.sweep.store import Store


@pytest.mark.parametrize("kind", ["/dev/zero", "a 65 MiB file", "a directory"])
def test_what_is_no_scenario_file_is_one_line_and_quick(tmp_path: Path, kind: str, capsys):
    if kind == "/dev/zero":
        path, message = (
            Path("/dev/zero"),
            "cannot read: larger than 64 MiB, which no scenario or sweep file is",
        )
    elif kind == "a 65 MiB file":
        path = tmp_path / "big.toml"
        with open(path, "wb") as file:
            file.truncate(65 * 2**20)  # sparse: no disk used
        message = "cannot read: larger than 64 MiB, which no scenario or sweep file is"
    else:
        path, message = tmp_path, "cannot read: Is a directory"
    for command in (
        ["validate", str(path)],
        ["sweep", str(path), "--store", str(tmp_path / "s.duckdb")],
    ):
        started = time.monotonic()
        status = main(command)
        took = time.monotonic() - started
        lines = capsys.readouterr().err.strip().splitlines()
        assert status == 2 and lines == [f"aqmlab: error: {path}: {message}"], (
            command,
            lines,
        )
        assert took < 10.0  # /dev/zero used to be read until memory ran out
    assert not (tmp_path / "s.duckdb").exists()


def test_ctrl_c_while_a_store_opens_is_an_interrupt_not_a_bad_store(tmp_path: Path, monkeypatch):
    def interrupted_connect(*args, **kwargs):
        raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")

    monkeypatch.setattr(duckdb, "connect", interrupted_connect)
    with pytest.raises(KeyboardInterrupt):
        Store(tmp_path / "s.duckdb")
