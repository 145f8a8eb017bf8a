"""MkDocs hook: pages generated from the installed aqmlab, so they cannot drift from it.

`{{ scenario_reference }}` becomes the scenario reference built from the core's catalogue, and
`{{ cli_reference }}` the help text of every `aqmlab` subcommand.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout


def on_page_markdown(markdown: str, **kwargs: object) -> str:
    if "{{ scenario_reference }}" in markdown:
        from aqmlab.reference import scenario_reference_markdown

        markdown = markdown.replace("{{ scenario_reference }}", scenario_reference_markdown())
    if "{{ cli_reference }}" in markdown:
        markdown = markdown.replace("{{ cli_reference }}", _cli_reference())
    return markdown


def _cli_reference() -> str:
    from aqmlab.cli import build_parser

    parser = build_parser()
    blocks = ["## `aqmlab`\n", "```text\n" + _help(parser) + "```\n"]
    subparsers = next(action for action in parser._actions if action.__class__.__name__ == "_SubParsersAction")
    for name, subparser in subparsers.choices.items():
        blocks += [f"## `aqmlab {name}`\n", "```text\n" + _help(subparser) + "```\n"]
    return "\n".join(blocks)


def _help(parser) -> str:
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        parser.print_help()
    return buffer.getvalue()
