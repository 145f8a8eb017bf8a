"""The ``aqmlab`` command line: a parser built from the subcommand registry, and one error policy.

A user's mistake (bad scenario, missing file, bad option) prints ``aqmlab: error: ...`` and exits
with status 2; a run that cannot finish exits 1; Ctrl-C exits 130. None of them print a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """Reports argument mistakes in two lines instead of the full usage text."""

    def error(self, message: str) -> NoReturn:
        # "invalid choice: 'rn' (choose from ...)": name the closest command (Python 3.11's argparse does not).
        choice = re.match(r"argument COMMAND: invalid choice: '([^']*)'", message)
        if choice:
            import difflib

            from aqmlab.commands import COMMAND_MODULES

            commands = [module.replace("_", "-") for module in COMMAND_MODULES]
            close = difflib.get_close_matches(choice.group(1), commands, n=1)
            if close:
                message += f" (did you mean '{close[0]}'?)"
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n(see '{self.prog} --help')\n")

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse makes a formatter for every argument added, and its default width comes from
        # shutil.get_terminal_size: importing shutil (with bz2, lzma, zlib) was a tenth of
        # `aqmlab run`'s start-up. The same width, from os alone.
        if self.formatter_class is not argparse.HelpFormatter:
            return super()._get_formatter()
        return argparse.HelpFormatter(prog=self.prog, width=_help_width())


def _help_width() -> int:
    """What shutil.get_terminal_size gives argparse: $COLUMNS, else the terminal's, else 80; less 2."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return (columns or 80) - 2


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only``, the options of that command alone are added (the
    others are listed by name and summary): what one command line needs, not seven commands'."""
    from aqmlab import __version__
    from aqmlab.commands import load_commands

    parser = _Parser(prog="aqmlab", description="Packet-level simulator of congested gateways.")
    parser.add_argument("--version", action="version", version=f"aqmlab {__version__}")
    subcommands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for command in load_commands():
        subparser = subcommands.add_parser(
            command.name, help=command.summary, description=command.description or command.summary
        )
        if only is None or command.name == only:
            command.add_arguments(subparser)
        subparser.set_defaults(handler=command.handler)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        # Imports are inside the guard so Ctrl-C while numpy/pandas load is handled too.
        from aqmlab import ScenarioError, SimulationError
        from aqmlab.commands import CommandError

        words = list(sys.argv[1:] if argv is None else argv)
        # The command is the first word that is not an option (the top level's options take no
        # value): only its options are built.
        command = next((word for word in words if not word.startswith("-")), None)
        args = build_parser(command).parse_args(words)
        try:
            return args.handler(args)
        except ScenarioError as error:
            return _fail(str(error), EXIT_USAGE)
        except SimulationError as error:
            return _fail(f"simulation failed: {error}", 1)
        except CommandError as error:
            return _fail(str(error), error.exit_status)
    except KeyboardInterrupt:
        print("aqmlab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`aqmlab list | head`); silence the flush at exit as well.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _fail(message: str, status: int) -> int:
    print(f"aqmlab: error: {message}", file=sys.stderr)
    return status
