"""Pure-Python helpers of the front: --set parsing, atomic writes, progress reporting."""

from __future__ import annotations

import io
import os
import stat

import pytest

from aqmlab._io import write_text_atomic
from aqmlab.commands import UsageError
from aqmlab.commands._common import parse_override
from aqmlab.progress import ProgressReporter, human_count


def test_parse_override_splits_on_the_first_equals_sign():
    assert parse_override("flow.name=a=b") == ("flow.name", "a=b")
    assert parse_override(" simulation.seed = 4 ") == ("simulation.seed", "4")


@pytest.mark.parametrize("text", ["no-equals", "=value", " =value"])
def test_parse_override_refuses_text_without_a_key(text):
    with pytest.raises(UsageError, match="KEY=VALUE"):
        parse_override(text)


def test_atomic_write_replaces_the_file_and_keeps_its_mode(tmp_path):
    target = tmp_path / "results.json"
    target.write_text("old")
    target.chmod(0o640)
    write_text_atomic(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["results.json"]


def test_atomic_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "results.json"
    target.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(target, "\ud800")  # a lone surrogate cannot be encoded
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["results.json"]


def test_progress_is_silent_off_a_terminal_until_the_run_is_long():
    stream = io.StringIO()
    reporter = ProgressReporter("demo", stream=stream)
    reporter(1.0, 10.0, 1000)
    assert stream.getvalue() == ""
    reporter.next_line_at = 0.0  # as if more than QUIET_START_S had passed
    reporter(2.0, 10.0, 2000)
    assert stream.getvalue().startswith("aqmlab: demo: 2.0/10 s simulated, ")


def test_human_count():
    assert human_count(999) == "999"
    assert human_count(1_234_567) == "1.23M"
