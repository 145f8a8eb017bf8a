"""The documentation: the scenario reference is generated from the core's catalogue and lists every
key and series column (tests/catalogue.rs checks the catalogue against what the loader accepts);
the site itself is built by `make docs`, strict, in `make test`."""

from __future__ import annotations

import re

import pytest

from aqmlab.reference import catalogue, documented_keys, scenario_reference_markdown
from support import REPO_ROOT


@pytest.fixture(scope="module")
def reference() -> str:
    return scenario_reference_markdown()


def _section(markdown: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    start = markdown.index(heading + "\n")
    following = re.compile(rf"^#{{1,{level}}} ", re.MULTILINE)
    end = following.search(markdown, start + len(heading))
    return markdown[start : end.start() if end else len(markdown)]


def test_every_section_key_is_in_its_table(reference: str):
    for section, heading in [("simulation", "## `[simulation]`"), ("link", "## `[[link]]`"), ("trace", "## `[trace]`")]:
        text = _section(reference, heading)
        for key in documented_keys()[section]:
            assert f"| `{key}` |" in text, f"{section}.{key} is not in the reference"


def test_every_discipline_flow_kind_and_cc_has_its_keys(reference: str):
    keys = documented_keys()
    cat = catalogue()
    for prefix, entries, field in [
        ("queue", "disciplines", "discipline"),
        ("kind", "flow_kinds", "kind"),
        ("cc", "congestion_controls", "cc"),
    ]:
        for entry in cat[entries]:
            heading = next(
                line
                for line in reference.splitlines()
                if line.endswith(f'`{field} = "{entry["name"]}"`') or f'`{field} = "{entry["name"]}"` (also' in line
            )
            text = _section(reference, heading)
            for key in keys[f"{prefix}:{entry['name']}"]:
                assert f"| `{key}` |" in text, f"{field} {entry['name']}: {key} is not in the reference"


def test_every_series_column_is_described_with_its_unit(reference: str):
    text = _section(reference, "### Series columns")
    for owner in ("link", "flow"):
        for column in catalogue()["series"][owner]:
            assert f"| `{column['name']}` | {column['label']} | {column['unit']} | {column['kind']} |" in text


def test_every_results_column_is_described_with_its_label_and_unit(reference: str):
    text = _section(reference, "## Results columns")
    for table, columns in catalogue()["results"].items():
        assert f"### `{table}`:" in text
        for column in columns:
            assert f"| `{column['name']}` | {column['label']} | {column['unit']} |" in text, (table, column["name"])


def test_the_defaults_a_newcomer_asked_about_are_stated(reference: str):
    link = _section(reference, "## `[[link]]`")
    assert '| `delay` | duration (s, ms, us, ns) | `"0s"` |' in link
    assert "DropTail queue of 100 packets" in link
    assert "shortest path by hop count" in reference
    assert "`qlen_pkts` | queue length | packets | sample" in reference
    assert "`throughput_bps` | throughput | bit/s | interval" in reference
    assert "`drops:REASON` | REASON drops | packets | interval" in reference


def test_every_page_in_the_navigation_exists():
    nav = (REPO_ROOT / "mkdocs.yml").read_text()
    for page in re.findall(r":\s+([\w/.-]+\.md)\s*$", nav, re.MULTILINE):
        assert (REPO_ROOT / "docs" / page).is_file(), page
