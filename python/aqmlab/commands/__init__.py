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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

COMMAND_MODULES = ("run", "validate", "list", "sweep", "plot", "plot_series", "reproduce")


# A plain class, not a dataclass nor a NamedTuple: dataclasses pulls in inspect, a third of the
# command line's start-up imports, and typing (for NamedTuple) costs 2 ms of a 40 ms process.
class Command:
    __slots__ = ("add_arguments", "description", "handler", "name", "summary")

    def __init__(
        self,
        name: str,
        summary: str,  # one line, shown by `aqmlab --help`
        add_arguments: Callable[[argparse.ArgumentParser], None],
        handler: Callable[[argparse.Namespace], int],
        description: str | None = None,  # shown by `aqmlab NAME --help`; defaults to the summary
    ) -> None:
        self.name = name
        self.summary = summary
        self.add_arguments = add_arguments
        self.handler = handler
        self.description = description


def path_argument(text: str) -> Path:
    """argparse's ``type=`` for a path: pathlib is imported when such an option is given, not by
    every command line (with its urllib.parse, 3 ms of a 40 ms `aqmlab run`)."""
    from pathlib import Path

    return Path(text)


class CommandError(Exception):
    """A failure reported as ``aqmlab: error: MESSAGE``, without a traceback."""

    exit_status = 1


class UsageError(CommandError):
    """The user asked for something that cannot work: a bad option value, a missing directory."""

    exit_status = 2


def load_commands() -> list[Command]:
    return [importlib.import_module(f"{__name__}.{module}").COMMAND for module in COMMAND_MODULES]
