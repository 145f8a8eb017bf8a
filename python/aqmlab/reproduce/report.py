"""Writing a reproduction's files: comparison.csv, report.md, figures, and the index page."""

from __future__ import annotations

import html
import math
import os
import tempfile
from pathlib import Path

import pandas as pd

from aqmlab.reproduce.base import COMPARISON_COLUMNS
from aqmlab.reproduce.runner import Outcome, counts, fmt


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
    c = counts(outcome.comparison)
    seeds = int(outcome.comparison["seeds"].max()) if len(outcome.comparison) else 0
    lines = [
        f"# {exp.id}: {exp.title}",
        "",
        f"**Paper:** {exp.paper}. **Reproduces:** {exp.source}. **Scenario:** `scenarios/papers/{exp.scenario}`.",
        "",
        (
            f"{outcome.runs} runs ({seeds} seeds per condition), {outcome.wall_s:.2f} s of simulation wall time in all. "
            f"Verdicts: {c['match']} match, {c['same-trend']} same trend, {c['differs']} differ."
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
        (
            "A row *matches* when the paper's value is inside the 95% interval over seeds or within the "
            "tolerance of the mean; it follows the *same trend* when the paper's qualitative finding holds."
        ),
        "",
        "| quantity | condition | paper | sim mean | 95% interval | verdict | source (certainty) |",
        "|---|---|---|---|---|---|---|",
    ]
    for _, r in outcome.comparison.iterrows():
        interval = f"[{fmt(r['ci95_low'])}, {fmt(r['ci95_high'])}]" if not math.isnan(r["ci95_low"]) else ""
        paper = fmt(r["paper_value"]) or "claim"
        lines.append(
            f"| {r['quantity']} | {r['condition']} | {paper} | {fmt(r['sim_mean'])} | {interval} | "
            f"{r['verdict']} | {r['source']} ({r['certainty']}) |"
        )
    trends = outcome.comparison[outcome.comparison["trend"] != ""]
    if len(trends):
        lines += ["", "## Qualitative findings checked", ""]
        for _, r in trends.drop_duplicates("trend").iterrows():
            lines.append(f"- {r['trend']}")
    differs = outcome.comparison[outcome.comparison["verdict"] == "differs"]
    if len(differs):
        lines += ["", "## Why rows differ", ""]
        for _, r in differs.iterrows():
            why = r["explanation"] or "not yet explained: see the set-up notes above."
            paper = f"paper {fmt(r['paper_value'])}, " if fmt(r["paper_value"]) else "a claim of the paper; "
            lines.append(f"- **{r['quantity']} / {r['condition']}** ({paper}simulated {fmt(r['sim_mean'])}): {why}")
    if figures:
        lines += ["", "## Figures", ""] + [f"![{f.stem}]({f.name})" for f in figures if f.suffix == ".png"]
    return "\n".join(lines) + "\n"


def index_html(outdir: Path) -> Path:
    """One page gathering every experiment's table and figures found under ``outdir``."""
    sections = []
    toc = []
    for exp_dir in sorted(p for p in outdir.iterdir() if (p / "comparison.csv").exists()):
        table = pd.read_csv(exp_dir / "comparison.csv")
        c = {v: int((table["verdict"] == v).sum()) for v in ("match", "same-trend", "differs")}
        title = exp_dir.name
        report = exp_dir / "report.md"
        if report.exists():
            first = report.read_text().splitlines()[0]
            title = first.lstrip("# ").strip()
        toc.append(
            f'<li><a href="#{exp_dir.name}">{html.escape(title)}</a> '
            f'<span class="counts">{c["match"]} match, {c["same-trend"]} same trend, {c["differs"]} differ</span></li>'
        )
        rows = []
        for _, r in table.iterrows():
            cls = str(r["verdict"])
            cells = [
                r["quantity"],
                r["condition"],
                fmt(r["paper_value"]) or "claim",
                fmt(r["sim_mean"]),
                f"[{fmt(r['ci95_low'])}, {fmt(r['ci95_high'])}]" if not pd.isna(r["ci95_low"]) else "",
                r["verdict"],
            ]
            rows.append(f'<tr class="{cls}">' + "".join(f"<td>{html.escape(str(x))}</td>" for x in cells) + "</tr>")
        figs = "".join(
            f'<figure><img src="{exp_dir.name}/{p.name}" alt="{p.stem}"><figcaption>{p.stem}</figcaption></figure>'
            for p in sorted(exp_dir.glob("*.png"))
        )
        sections.append(
            f'<section id="{exp_dir.name}"><h2>{html.escape(title)}</h2>'
            f'<p><a href="{exp_dir.name}/report.md">report.md</a> · <a href="{exp_dir.name}/comparison.csv">comparison.csv</a></p>'
            "<table><tr><th>quantity</th><th>condition</th><th>paper</th><th>sim mean</th><th>95% interval</th><th>verdict</th></tr>"
            + "".join(rows)
            + f"</table>{figs}</section>"
        )
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>aqmlab reproductions</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }}
td, th {{ border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; }}
tr.match td:last-child {{ background: #d8f0d8; }} tr.same-trend td:last-child {{ background: #f3ecc8; }}
tr.differs td:last-child {{ background: #f3d0d0; }}
figure {{ display: inline-block; margin: 0.5em; }} img {{ max-width: 520px; }}
.counts {{ color: #666; font-size: 0.9em; }}
</style></head><body>
<h1>aqmlab: the four papers, reproduced</h1>
<p>Each section is one table or figure of a paper: the published value, aqmlab's mean over seeds with its
95% interval, and a verdict (match, same trend, differs). The reports explain every difference.</p>
<ul>{"".join(toc)}</ul>
{"".join(sections)}
</body></html>
"""
    path = outdir / "index.html"
    _atomic_write(path, page)
    return path
