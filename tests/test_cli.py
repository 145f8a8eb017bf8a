"""The `aqmlab` command line: exit codes, error messages, outputs."""

from __future__ import annotations

import json
import re

import pytest

from support import EXAMPLE, REPO_ROOT, error_lines, run_cli

DESIGN_TOP_KEYS = {
    "format",
    "scenario",
    "seed",
    "sim_time_s",
    "measure_from_s",
    "events",
    "wall_s",
    "flows",
    "links",
    "fairness",
}
DESIGN_FLOW_KEYS = {
    "name", "kind", "src", "dst", "group", "sent_pkts", "delivered_pkts", "sent_bytes", "delivered_bytes",
    "goodput_bytes", "throughput_bps", "dropped_pkts", "drops_by_reason", "retransmits", "mean_rtt_s",
    "mean_qdelay_s", "mean_delay_s", "in_flight_pkts",
}  # fmt: skip
DESIGN_LINK_KEYS = {
    "name", "from", "to", "discipline", "arrivals", "departures", "drops_by_reason", "mean_queue_pkts",
    "mean_queue_bytes", "mean_qdelay_s", "utilization", "marks", "flows",
}  # fmt: skip
DESIGN_LINK_FLOW_KEYS = {"flow", "arrivals", "departures", "drops", "mean_qdelay_s", "sd_qdelay_s", "overflow_arrivals"}


def assert_user_error(result, *expected_fragments: str) -> None:
    """Exit status 2, one or two lines on stderr, no traceback, and the fragments in the message."""
    lines = error_lines(result)
    assert result.returncode == 2, result.stderr
    assert 1 <= len(lines) <= 2, result.stderr
    assert "Traceback" not in result.stderr
    assert lines[0].startswith("aqmlab"), lines
    for fragment in expected_fragments:
        assert fragment in result.stderr


# --- validate ---------------------------------------------------------------------------------


def test_validate_accepts_the_example():
    result = run_cli("validate", EXAMPLE)
    assert result.returncode == 0, result.stderr
    assert "OK" in result.stdout


def test_validate_json_prints_the_expanded_scenario():
    result = run_cli("validate", EXAMPLE, "--json")
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout)


# --- user mistakes: status 2, a short message naming the file (and line), no traceback ----------


def test_missing_file_is_a_user_error(tmp_path):
    missing = tmp_path / "nope.toml"
    assert_user_error(run_cli("run", missing), str(missing), "cannot read")


def test_directory_is_a_user_error(tmp_path):
    assert_user_error(run_cli("validate", tmp_path), str(tmp_path), "cannot read")


def test_non_utf8_file_names_file_and_line(tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b'[simulation]\nduration = "10s"\n# caf\xe9\n')
    assert_user_error(run_cli("validate", bad), str(bad), "UTF-8", "line 3")


def test_binary_file_is_a_user_error(tmp_path):
    binary = tmp_path / "blob.toml"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    assert_user_error(run_cli("validate", binary), str(binary), "binary")


def test_toml_syntax_error_names_file_and_line(tmp_path):
    bad = tmp_path / "syntax.toml"
    bad.write_text('[simulation]\nduration = "10s"\nseed = = 1\n')
    assert_user_error(run_cli("run", bad), f"{bad}:3")


def test_unknown_discipline_names_file_and_line(tmp_path):
    lines = EXAMPLE.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if re.search(r'discipline\s*=\s*"', line))
    lines[index] = re.sub(r'discipline\s*=\s*"[^"]*"', 'discipline = "no-such-discipline"', lines[index])
    bad = tmp_path / "bad-discipline.toml"
    bad.write_text("\n".join(lines) + "\n")
    assert_user_error(run_cli("validate", bad), f"{bad}:{index + 1}", "no-such-discipline")


@pytest.mark.parametrize("setting", ["no-equals-sign", "=value"])
def test_bad_set_syntax_is_a_user_error(setting):
    assert_user_error(run_cli("validate", EXAMPLE, "--set", setting), "KEY=VALUE")


def test_set_of_unknown_key_is_refused():
    assert_user_error(run_cli("validate", EXAMPLE, "--set", "simulation.no_such_key=1"), "no_such_key")


@pytest.mark.parametrize("seed", ["-1", "abc"])
def test_bad_seed_is_a_user_error(seed):
    assert_user_error(run_cli("run", EXAMPLE, "--seed", seed), "--seed")


def test_no_subcommand_is_a_user_error():
    assert_user_error(run_cli(), "COMMAND")


# --- --out: atomic, and only on success -------------------------------------------------------


def test_out_is_not_written_when_the_scenario_is_bad(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("this is not toml\n")
    out = tmp_path / "out" / "results.json"
    out.parent.mkdir()
    assert_user_error(run_cli("run", bad, "--out", out), str(bad))
    assert list(out.parent.iterdir()) == []


def test_out_into_missing_directory_is_refused_before_running(tmp_path):
    out = tmp_path / "missing" / "results.json"
    assert_user_error(run_cli("run", EXAMPLE, "--out", out), "does not exist")


def test_out_is_written_whole_on_success(tmp_path):
    out = tmp_path / "results.json"
    result = run_cli("run", EXAMPLE, "--out", out)
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["format"] == "aqmlab.results/1"
    assert [path.name for path in tmp_path.iterdir()] == ["results.json"]  # no temporary file left


# --- run output ---------------------------------------------------------------------------------


def test_run_json_has_the_design_keys(example_results_raw):
    raw = example_results_raw
    assert DESIGN_TOP_KEYS <= raw.keys()
    assert raw["format"] == "aqmlab.results/1"
    assert raw["flows"] and raw["links"]
    for flow in raw["flows"]:
        assert DESIGN_FLOW_KEYS <= flow.keys(), DESIGN_FLOW_KEYS - flow.keys()
    for link in raw["links"]:
        assert DESIGN_LINK_KEYS <= link.keys(), DESIGN_LINK_KEYS - link.keys()
        for link_flow in link["flows"]:
            assert DESIGN_LINK_FLOW_KEYS <= link_flow.keys(), DESIGN_LINK_FLOW_KEYS - link_flow.keys()
    assert 0 < raw["fairness"]["jain"] <= 1
    assert isinstance(raw["fairness"]["groups"], dict)


def test_run_prints_tables_naming_every_flow_and_busy_link(example_results_raw):
    result = run_cli("run", EXAMPLE)
    assert result.returncode == 0, result.stderr
    assert "Flows" in result.stdout and "Links" in result.stdout
    busy_links = [link for link in example_results_raw["links"] if link["arrivals"]]
    for item in example_results_raw["flows"] + busy_links:
        assert item["name"] in result.stdout


def test_seed_option_replaces_the_scenario_seed():
    result = run_cli("run", EXAMPLE, "--json", "--seed", "12345")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["seed"] == 12345


# --- list, version --------------------------------------------------------------------------------


def test_list_shows_droptail_and_the_example_scenario():
    result = run_cli("list")
    assert result.returncode == 0, result.stderr
    assert "droptail" in result.stdout
    assert "udp-dumbbell" in result.stdout


def test_list_json_has_every_section():
    result = run_cli("list", "--json")
    assert result.returncode == 0, result.stderr
    listing = json.loads(result.stdout)
    assert {"disciplines", "flow_kinds", "congestion_controls", "scenarios"} <= listing.keys()


def test_python_dash_m_reports_the_version():
    import aqmlab

    result = run_cli("--version")
    assert result.returncode == 0
    assert aqmlab.__version__ in result.stdout


# --- Ctrl-C (in-process, with the simulation replaced) -------------------------------------------


def test_interrupt_exits_130_with_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    import aqmlab.commands.run as run_command
    from aqmlab.cli import main

    def interrupted_run(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_command, "run_scenario", interrupted_run)
    out = tmp_path / "results.json"
    assert main(["run", str(EXAMPLE), "--out", str(out)]) == 130
    assert capsys.readouterr().err.strip().splitlines() == ["aqmlab: interrupted"]
    assert list(tmp_path.iterdir()) == []


# --- warnings -----------------------------------------------------------------------------------


def test_an_ecn_option_no_flow_can_use_is_a_warning_on_stderr_and_in_the_results(tmp_path):
    # The TCP dumbbell's bottleneck runs CHOKe; switch it to RED with ecn = true while its Reno
    # flows are not ECN-capable: the option can mark nothing.
    dumbbell = REPO_ROOT / "scenarios" / "examples" / "dumbbell.toml"
    out = tmp_path / "results.json"
    settings = ["--set", "link.bottleneck.queue.discipline=red", "--set", "link.bottleneck.queue.ecn=true"]
    result = run_cli(
        "run", dumbbell, *settings, "--set", "simulation.duration=5s", "--set", "simulation.warmup=1s", "--out", out
    )
    assert result.returncode == 0, result.stderr
    warning = "aqmlab: warning: link bottleneck: red has ecn = true but no ECN-capable flow"
    assert warning in result.stderr
    assert json.loads(out.read_text())["warnings"][0].startswith("link bottleneck: red has ecn = true")
    assert warning in run_cli("validate", dumbbell, *settings).stderr
    # With the TCP flows ECN-capable there is nothing to say.
    quiet = run_cli("validate", dumbbell, *settings, "--set", "flow.tcp*.ecn=true")
    assert quiet.returncode == 0, quiet.stderr
    assert "warning" not in quiet.stderr


def test_reproduce_selects_by_group_paper_or_id_and_names_what_it_accepts():
    from aqmlab.reproduce import EXPERIMENTS, select

    headline = select(["headline"])
    assert headline and all(not EXPERIMENTS[i].variant_of for i in headline)
    # Every side-by-side experiment repeats one the headline runs.
    assert {e.variant_of for e in EXPERIMENTS.values() if e.variant_of} <= set(headline)
    assert select(["all"]) == list(EXPERIMENTS)
    dks = select(["dks-1989"])
    assert dks and all(i.startswith("dks-1989-") for i in dks)
    # Catalogue order, each once, whatever the order and overlap of the names.
    assert select(["dks-1989-scenario3", "zlred", "dks-1989-scenario3"]) == [
        i for i in EXPERIMENTS if i == "dks-1989-scenario3" or i.startswith("zlred-")
    ]
    result = run_cli("reproduce", "dks-1989-scenario9")
    assert_user_error(result, "unknown experiment 'dks-1989-scenario9'", "headline", "mankin-1990")
