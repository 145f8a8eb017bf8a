"""The registry of ``aqmlab`` subcommands.

Each subcommand lives in its own module here and defines ``COMMAND = Command(...)``. To add one
(``sweep``, ``plot``, ``reproduce``), write ``aqmlab/commands/<name>.py`` and add its module name
to ``COMMAND_MODULES``. Every module is imported when the CLI starts, so import heavy libraries
inside the handler, not at module level.

Handlers return the exit status. They raise ``UsageError`` (or ScenarioError) for a user's
mistake, which the CLI prints as one ``aqmlab: error: ...`` line and exit status 2, and
``CommandError`` for other failures worth a message rather than a traceback (status 1).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import NamedTuple

COMMAND_MODULES = ("run", "validate", "list", "sweep", "plot", "plot_series", "reproduce")


# A NamedTuple, not a dataclass: dataclasses pulls in inspect, a third of the command line's
# start-up imports.
class Command(NamedTuple):
    name: str
    summary: str  # one line, shown by `aqmlab --help`
    add_arguments: Callable[[argparse.ArgumentParser], None]
    handler: Callable[[argparse.Namespace], int]
    description: str | None = None  # shown by `aqmlab NAME --help`; defaults to the summary


class CommandError(Exception):
    """A failure reported as ``aqmlab: error: MESSAGE``, without a traceback."""

    exit_status = 1


class UsageError(CommandError):
    """The user asked for something that cannot work: a bad option value, a missing directory."""

    exit_status = 2


def load_commands() -> list[Command]:
    return [importlib.import_module(f"{__name__}.{module}").COMMAND for module in COMMAND_MODULES]
