"""Writing a reproduction's files: comparison.csv, report.md, figures, and the index page."""

from __future__ import annotations

import html
import os
import tempfile
from pathlib import Path

import pandas as pd

from aqmlab.reproduce.base import COMPARISON_COLUMNS, counts_line, headline_line
from aqmlab.reproduce.runner import Outcome, fmt
from aqmlab.reproduce.verdict import MIN_SEEDS, VERDICTS

RULE = (
    "A row *matches* when aqmlab's mean is within half a unit of the paper's last printed digit "
    "(basis `precision`), within 10% of the paper's value (`tolerance`; some rows ask for less), or "
    f"when the paper's value is inside the 95% interval of the mean over at least {MIN_SEEDS} seeds "
    "(`interval`), an interval no wider than the mean; a published 0 matches only what rounds to 0. "
    "It is *consistent* (not a match) when the paper's value lies where one run would fall by chance: "
    "inside the 95% prediction interval of one run (`one-run spread`) or the row's own chance spread "
    "(such as `count 2 sqrt(n)`). It follows the *same trend* when only the paper's qualitative finding "
    "holds; a row whose finding fails *differs*, whatever its number (`trend fails`). Intervals are "
    "Student's t intervals intersected with the range the quantity can take (no negative throughput, "
    "shares within [0, 1]), which keeps their coverage; one wider than the mean is marked *uninformative*. "
    "A row whose seeds fall into distinct regimes (a phase that locks a source in or out) compares the "
    "paper's single run with the *median* over seeds instead, without an interval; its interval column lists "
    "every seed's value."
)


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write(outcome: Outcome, outdir: Path) -> list[Path]:
    """Write the experiment's files into ``outdir``; returns them."""
    exp = outcome.experiment
    comparison = outcome.comparison
    extra = [c for c in comparison.columns if c not in COMPARISON_COLUMNS]
    csv = outdir / "comparison.csv"
    _atomic_write(csv, comparison[COMPARISON_COLUMNS + extra].to_csv(index=False))
    _atomic_write(outdir / "measured.csv", outcome.measured.to_csv(index=False))
    figures = exp.figures(outcome.measured, outcome.summary, outdir)
    md = outdir / "report.md"
    _atomic_write(md, markdown(outcome, figures))
    return [csv, md, *figures]


def markdown(outcome: Outcome, figures: list[Path]) -> str:
    exp = outcome.experiment
    seeds = int(outcome.comparison["seeds"].max()) if len(outcome.comparison) else 0
    lines = [
        f"# {exp.id}: {exp.title}",
        "",
        f"**Paper:** {exp.paper}. **Reproduces:** {exp.source}. **Scenario:** `scenarios/papers/{exp.scenario}`.",
        "",
    ]
    if exp.variant_of:
        lines += [
            (
                f"**Side by side with `{exp.variant_of}`:** the same published numbers under a condition that is "
                "not the paper's, as a demonstration of a cause; these rows are not in the headline."
            ),
            "",
        ]
    lines += [
        (
            f"{outcome.runs} runs ({seeds} seeds per condition), {outcome.wall_s:.2f} s of simulation wall time in all. "
            f"Verdicts: {counts_line(outcome.comparison)}."
        ),
        "",
    ]
    if exp.notes:
        lines += ["## Set-up", "", exp.notes.strip(), ""]
    if outcome.failures:
        lines += ["## Runs that failed", ""] + [f"- {f}" for f in outcome.failures] + [""]
    lines += [
        "## Comparison",
        "",
        RULE,
        "",
    ]
    if seeds < MIN_SEEDS:
        lines += [f"With {seeds} seed(s) (under {MIN_SEEDS}) no row has an interval: no verdict rests on one.", ""]
    lines += [
        "| quantity | condition | paper | aqmlab (mean, or median) | 95% interval | verdict | basis | source (certainty) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, r in outcome.comparison.iterrows():
        lines.append(
            f"| {r['quantity']} | {r['condition']} | {paper_cell(r)} | {fmt(r['sim_mean'])} | {interval_cell(r)} | "
            f"{r['verdict']} | {r['basis']} | {r['source']} ({r['certainty']}) |"
        )
    trends = outcome.comparison[outcome.comparison["trend"] != ""]
    if len(trends):
        lines += ["", "## Qualitative findings checked", ""]
        for _, r in trends.drop_duplicates("trend").iterrows():
            lines.append(f"- {r['trend']}")
    for verdict, heading in (("consistent", "Rows only consistent"), ("differs", "Why rows differ")):
        rows = outcome.comparison[outcome.comparison["verdict"] == verdict]
        if not len(rows):
            continue
        lines += ["", f"## {heading}", ""]
        for _, r in rows.iterrows():
            why = r["explanation"] or "not yet explained: see the set-up notes above."
            paper = f"paper {paper_cell(r)}, " if fmt(r["paper_value"]) else "a claim of the paper; "
            simulated = f"simulated {fmt(r['sim_mean'])}" if fmt(r["sim_mean"]) else "no simulated value"
            lines.append(f"- **{r['quantity']} / {r['condition']}** ({paper}{simulated}, basis: {r['basis']}): {why}")
    if figures:
        lines += ["", "## Figures", ""] + [f"![{f.stem}]({f.name})" for f in figures if f.suffix == ".png"]
    return "\n".join(lines) + "\n"


def paper_cell(r) -> str:
    """The paper's number as printed (with its bound), or "claim"."""
    if not fmt(r["paper_value"]):
        return "claim"
    printed = r["printed"] if isinstance(r.get("printed"), str) and r["printed"] else fmt(r["paper_value"])
    return {"min": ">= ", "max": "<= "}.get(r.get("bound") if isinstance(r.get("bound"), str) else "", "") + printed


def interval_cell(r) -> str:
    """The 95% interval, with the reason it decides nothing when it does not."""
    note = r.get("interval_note")
    note = note if isinstance(note, str) else ""
    if pd.isna(r["ci95_low"]):
        return note
    text = f"[{fmt(r['ci95_low'])}, {fmt(r['ci95_high'])}]"
    return f"{text} {note}" if note else text


def index_html(outdir: Path) -> Path:
    """One page gathering every experiment's table and figures found under ``outdir``."""
    sections = []
    toc = []
    tables = []
    for exp_dir in sorted(p for p in outdir.iterdir() if (p / "comparison.csv").exists()):
        table = pd.read_csv(exp_dir / "comparison.csv")
        table["basis"] = table["basis"].fillna("") if "basis" in table else ""
        line = counts_line(table)
        tables.append(table)
        title = exp_dir.name
        report = exp_dir / "report.md"
        if report.exists():
            first = report.read_text().splitlines()[0]
            title = first.lstrip("# ").strip()
        toc.append(
            f'<li><a href="#{exp_dir.name}">{html.escape(title)}</a> '
            f'<span class="counts">{html.escape(line)}</span></li>'
        )
        rows = []
        for _, r in table.iterrows():
            cls = str(r["verdict"])
            cells = [
                r["quantity"],
                r["condition"],
                paper_cell(r),
                fmt(r["sim_mean"]),
                interval_cell(r),
                r["verdict"],
                r["basis"],
            ]
            tds = [f"<td{' class=v' if k == 5 else ''}>{html.escape(str(x))}</td>" for k, x in enumerate(cells)]
            rows.append(f'<tr class="{cls}">' + "".join(tds) + "</tr>")
        figs = "".join(
            f'<figure><img src="{exp_dir.name}/{p.name}" alt="{p.stem}"><figcaption>{p.stem}</figcaption></figure>'
            for p in sorted(exp_dir.glob("*.png"))
        )
        sections.append(
            f'<section id="{exp_dir.name}"><h2>{html.escape(title)}</h2>'
            f'<p class="counts">{html.escape(line)}</p>'
            f'<p><a href="{exp_dir.name}/report.md">report.md</a> · <a href="{exp_dir.name}/comparison.csv">comparison.csv</a></p>'
            "<table><tr><th>quantity</th><th>condition</th><th>paper</th><th>sim mean</th><th>95% interval</th><th>verdict</th><th>basis</th></tr>"
            + "".join(rows)
            + f"</table>{figs}</section>"
        )
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>aqmlab reproductions</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }}
td, th {{ border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; }}
tr.match td.v {{ background: #d8f0d8; }} tr.consistent td.v {{ background: #e4eef8; }}
tr.same-trend td.v {{ background: #f3ecc8; }} tr.differs td.v {{ background: #f3d0d0; }}
figure {{ display: inline-block; margin: 0.5em; }} img {{ max-width: 520px; }}
.counts {{ color: #666; font-size: 0.9em; }}
</style></head><body>
<h1>aqmlab: the four papers, reproduced</h1>
<p>Each section is one table or figure of a paper: the published value, aqmlab's mean over seeds with its
95% interval, a verdict ({", ".join(VERDICTS)}) and the basis it rests on. {html.escape(RULE.replace("*", "").replace("`", ""))}
The reports explain every row that is only consistent or differs.</p>
<p class="counts">All: {html.escape(counts_line(pd.concat(tables, ignore_index=True)) if tables else "")}</p>
<p class="counts">{html.escape(headline_line(pd.concat(tables, ignore_index=True)) if tables else "")}</p>
<ul>{"".join(toc)}</ul>
{"".join(sections)}
</body></html>
"""
    path = outdir / "index.html"
    _atomic_write(path, page)
    return path
