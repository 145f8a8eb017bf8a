"""aqmlab.reproduce.search: the command line, pool and progress the diagnostic searches share."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from aqmlab.reproduce import search


def square(job: int) -> dict:
    return {"job": job, "square": job * job}


def test_options_are_checked_before_anything_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = search.arguments("a search", models=10, seeds=3, draw_seed=4)
    args = search.parse(parser, [])
    assert (args.models, args.seeds, args.draw_seed, args.workers, args.out) == (10, 3, 4, 2, None)
    for argv, says in (
        (["--seeds", "0"], "--seeds must be at least 1 (got 0)"),
        (["--out", str(tmp_path / "missing" / "x.jsonl")], "does not exist"),
    ):
        with pytest.raises(SystemExit) as stop:
            search.parse(parser, argv)
        assert stop.value.code == 2 and says in capsys.readouterr().err


def test_models_run_in_order_on_the_pool_and_land_whole_in_the_file(tmp_path: Path) -> None:
    out = tmp_path / "models.jsonl"
    results = search.run_models(square, list(range(7)), workers=2, out=out, label="squares")
    assert [r["square"] for r in results] == [j * j for j in range(7)]
    assert [json.loads(line) for line in out.read_text().splitlines()] == results


def test_off_a_terminal_progress_is_a_line_at_the_end() -> None:
    stream = io.StringIO()
    with search._Progress("squares", 3, stream) as progress:
        for _ in range(3):
            progress.update()
    assert stream.getvalue().startswith("squares: 3 of 3 models") and stream.getvalue().count("\n") == 1


def refuse_odd(job: int) -> dict:
    if job % 2:
        raise ValueError(f"odd job {job}")
    return {"job": job}


def test_a_refused_model_stops_the_search_with_its_message(tmp_path: Path) -> None:
    out = tmp_path / "models.jsonl"
    with pytest.raises(SystemExit) as stop:
        search.run_models(refuse_odd, [0, 1, 2], workers=2, out=out, label="odd")
    assert str(stop.value) == "odd: model 2 of 3 was refused: ValueError: odd job 1"
    assert not out.exists()


def test_a_draw_takes_the_details_in_order_so_a_draw_seed_gives_the_same_models() -> None:
    import random

    readings = {"b": ["1", "2", "3"], "a": ["x", "y"]}
    drawn = search.choose(random.Random(9), readings, "p.")
    rng = random.Random(9)
    assert drawn == {"p.b": rng.choice(readings["b"]), "p.a": rng.choice(readings["a"])}
    assert list(drawn) == ["p.b", "p.a"]


def test_near_is_the_verdicts_tolerance() -> None:
    assert search.near(110.0, 100.0) and search.near(90.0, 100.0)
    assert not search.near(110.1, 100.0) and not search.near(89.9, 100.0)
