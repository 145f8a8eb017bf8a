"""The papers' published numbers (scenarios/papers/*/published.toml) and the rows that compare
with them: every number is compared by some row, and every row's number is one of the file's."""

from __future__ import annotations

import math

import pytest

from aqmlab.reproduce import EXPERIMENTS
from aqmlab.reproduce.base import PAPERS_DIR
from aqmlab.reproduce.published import CERTAINTIES, PublishedError, load_all, numbers, papers, parse

HEAD = '[paper]\ncitation = "A. Author, A paper, 1999"\npages = "none"\n'
ENTRY = (
    '[[number]]\nkey = "fig1.x"\nvalue = "0.50"\nunit = "fraction"\nsource = "Fig. 1"\n'
    'condition = "c"\ncertainty = "text"\nnote = "n"\n'
)


def _rows():
    return [(exp.id, ref) for exp in EXPERIMENTS.values() for ref in exp.references()]


def test_every_paper_directory_has_its_published_numbers() -> None:
    directories = sorted(p.name for p in PAPERS_DIR.iterdir() if p.is_dir())
    assert papers() == directories


def test_every_published_number_is_compared_by_some_row() -> None:
    cited = {ref.published for _, ref in _rows()}
    missing = sorted(set(load_all()) - cited)
    assert not missing, f"{len(missing)} published numbers are compared by no row: {missing[:20]}"


def test_every_row_with_a_number_takes_it_from_its_papers_file() -> None:
    table = load_all()
    for exp_id, ref in _rows():
        if math.isnan(ref.value):
            assert ref.published == "", (exp_id, ref.quantity, ref.condition)
            continue
        assert ref.published in table, (exp_id, ref.quantity, ref.condition, ref.value)
        num = table[ref.published]
        assert (ref.value, ref.printed, ref.bound, ref.certainty) == (num.value, num.printed, num.bound, num.certainty)


def test_the_files_are_well_formed_and_state_what_a_reader_needs() -> None:
    for paper in papers():
        for num in numbers(paper).values():
            assert num.certainty in CERTAINTIES
            assert num.unit and num.source and num.condition and num.note, num.id
            assert math.isfinite(num.value)


def test_a_string_value_keeps_its_printed_digits() -> None:
    (num,) = parse("p", HEAD + ENTRY).values()
    assert (num.value, num.printed, num.id) == (0.5, "0.50", "p/fig1.x")


def test_a_series_gives_one_number_per_member() -> None:
    text = HEAD + (
        '[[series]]\nkey = "t1"\nmembers = "flow"\nvalues = { a = "1", b = 2.5 }\nunit = "kbps"\n'
        'source = "Table 1"\ncondition = "c"\ncertainty = "certain"\nnote = "n"\n'
    )
    got = parse("p", text)
    assert {k: (n.value, n.printed) for k, n in got.items()} == {"t1.a": (1.0, "1"), "t1.b": (2.5, "2.5")}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace('certainty = "text"', 'certainty = "sure"'), "certainty 'sure'"),
        (lambda t: t.replace('value = "0.50"', 'value = "about half"'), "is not a number"),
        (lambda t: t.replace('value = "0.50"', 'value = "nan"'), "not finite"),
        (lambda t: t.replace('note = "n"\n', ""), "missing 'note'"),
        (lambda t: t + 'colour = "red"\n', "unknown field(s) colour"),
        (lambda t: t + t.replace(HEAD, ""), "appears twice"),
        (lambda t: t.replace(HEAD, ""), "[paper] table"),
        (lambda t: t + 'bound = "above"\n', "bound 'above'"),
        (lambda t: t + "[[numbers]]\n", "unknown section(s) numbers"),
    ],
)
def test_a_malformed_file_is_refused_with_the_entry_named(change, message: str) -> None:
    with pytest.raises(PublishedError, match=None) as error:
        parse("p", change(HEAD + ENTRY), "x/published.toml")
    assert message in str(error.value)
    assert "x/published.toml" in str(error.value)


def test_an_unknown_key_names_the_file() -> None:
    from aqmlab.reproduce.published import number

    with pytest.raises(PublishedError, match="choke-2000/published.toml has no number 'fig3.nothing'"):
        number("choke-2000", "fig3.nothing")


def test_no_source_cites_a_document_outside_the_repository() -> None:
    # The papers themselves are cited by authors, year, table and page; notes that lived beside
    # the repository (a digest of the experiments, a table of reference values) are not.
    from support import REPO_ROOT

    outside = ["experiments" + ".md", "reference" + ".toml", "shared/" + "papers", "../" + "shared"]
    offenders = []
    for top in ("crates", "python", "scenarios", "tests", "docs", "benches", "examples"):
        for path in (REPO_ROOT / top).rglob("*"):
            if path.suffix in {".rs", ".py", ".toml", ".md", ".ipynb"} and "target" not in path.parts:
                text = path.read_text(errors="ignore")
                offenders += [f"{path.relative_to(REPO_ROOT)}: {word}" for word in outside if word in text]
    assert not offenders, offenders
