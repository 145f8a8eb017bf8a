"""Stores that are not ours: every command that opens a store answers with one line and status 2,
and leaves the file exactly as it was."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from aqmlab.sweep.store import NotAStoreError, Store
from support import run_cli

BASE = """\
[simulation]
duration = "2s"
warmup = "0.5s"

[[link]]
name = "bottleneck"
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
queue = { discipline = "droptail", limit = 20 }

[[flow]]
name = "udp"
src = "a"
dst = "b"
kind = "cbr"
rate = "0.5Mbps"
"""
SPEC = 'base = "base.toml"\nseeds = 1\n'


def _valid_store(path: Path) -> bytes:
    Store(path).close()
    return path.read_bytes()


def make_empty(path: Path) -> None:
    path.write_bytes(b"")


def make_garbage(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 40)


def make_truncated(path: Path) -> None:
    whole = _valid_store(path)
    path.write_bytes(whole[: len(whole) // 2])


def make_checksum_broken(path: Path) -> None:
    # DuckDB's headers take the first 12 KiB; the block after them holds the catalog, read on opening.
    data = bytearray(_valid_store(path))
    data[12288 + 700 : 12288 + 704] = b"\xff\xfe\xfd\xfc"
    path.write_bytes(bytes(data))


def make_foreign(path: Path) -> None:
    import duckdb

    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE measurements (x INTEGER)")


def make_empty_database(path: Path) -> None:
    import duckdb

    duckdb.connect(str(path)).close()


def make_other_format(path: Path) -> None:
    import duckdb

    _valid_store(path)
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE meta SET value = 'aqmlab.store/99' WHERE key = 'format'")


def make_directory(path: Path) -> None:
    path.mkdir()


# kind -> (how to make it, what the one line must say)
KINDS = {
    "empty file": (make_empty, "not an aqmlab store (DuckDB cannot read it"),
    "garbage": (make_garbage, "not an aqmlab store (DuckDB cannot read it"),
    "truncated store": (make_truncated, "not an aqmlab store (DuckDB cannot read it"),
    "checksum broken": (make_checksum_broken, "not an aqmlab store (DuckDB cannot read it"),
    "foreign database": (make_foreign, "a DuckDB database, but not an aqmlab store"),
    "other store format": (make_other_format, "store format 'aqmlab.store/99', expected 'aqmlab.store/1'"),
    "directory": (make_directory, "is a directory, not a store"),
}


def fingerprint(path: Path) -> str:
    if path.is_dir():
        return "dir:" + ",".join(sorted(p.name for p in path.iterdir()))
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("read_only", [False, True], ids=["writing", "reading"])
def test_the_store_refuses_what_is_not_a_store_and_changes_nothing(tmp_path: Path, kind: str, read_only: bool):
    make, message = KINDS[kind]
    path = tmp_path / "x.duckdb"
    make(path)
    before = fingerprint(path)
    with pytest.raises(NotAStoreError, match="^" + str(path)) as raised:
        Store(path, read_only=read_only)
    assert message in str(raised.value) and "\n" not in str(raised.value)
    assert fingerprint(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.duckdb"]


def test_an_empty_database_is_refused_for_reading_but_becomes_a_store_for_writing(tmp_path: Path):
    path = tmp_path / "x.duckdb"
    make_empty_database(path)
    with pytest.raises(NotAStoreError, match="an empty database, not an aqmlab store"):
        Store(path, read_only=True)
    Store(path).close()
    Store(path, read_only=True).close()


@pytest.mark.parametrize("kind", ["garbage", "truncated store", "foreign database", "directory"])
def test_every_command_that_opens_a_store_answers_in_one_line_with_status_2(tmp_path: Path, kind: str):
    make, message = KINDS[kind]
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "s.toml").write_text(SPEC)
    store = tmp_path / "x.duckdb"
    make(store)
    before = fingerprint(store)
    for command in (
        ["sweep", "s.toml", "--store", store, "--workers", "1"],
        ["sweep", "s.toml", "--store", store, "--dry-run"],
        ["plot", store, "--metric", "events", "--x", "flow.udp.rate", "--out", tmp_path / "p.png"],
    ):
        result = run_cli(*command, cwd=tmp_path)
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1, (command, result.stderr)
        assert lines[0].startswith(f"aqmlab: error: {store}") and message in lines[0], lines[0]
        assert result.stdout == ""
        assert fingerprint(store) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.toml", "s.toml", "x.duckdb"]
