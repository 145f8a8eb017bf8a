"""Loading scenarios from TOML files, TOML text or Python dicts.

Parsing and validation happen in Rust (``_core.parse_scenario``); this module reads files with
clear errors and turns Python-side overrides into the ``--set KEY=VALUE`` pairs the core expects.
"""

from __future__ import annotations

import codecs
import json
import os
import re
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False  # typing and pathlib are not imported at start-up: 5 ms of a CLI process
if TYPE_CHECKING:
    from pathlib import Path

from aqmlab import _core
from aqmlab._args import check_overrides, check_path, check_text, check_tree, plain_values, shown
from aqmlab._core import Scenario, ScenarioError

# {"simulation.seed": 3} or [("simulation.seed", "3")]: values mean what VALUE means in `--set KEY=VALUE`;
# a dict is a table ({"link.b1.queue": {"discipline": "droptail", "limit": 200}}), a list an array.
Overrides = Mapping[str, object] | Iterable[tuple[str, object]]
PathLike = str | os.PathLike[str]
# The largest scenario or sweep file read (the largest in scenarios/ is a few KB; a scenario of
# 10^5 explicit entries is about 10 MB).
MAX_FILE_BYTES = 64 * 2**20


def load(path: PathLike, overrides: Overrides | None = None) -> Scenario:
    """Read, parse and validate the scenario file at ``path``.

    Raises ScenarioError ("PATH: cannot read: ..." when the file itself is the problem,
    "PATH:LINE: FIELD: ..." when its content is).
    """
    path_text = check_path(path, "path")
    pairs = override_pairs(check_overrides(overrides))
    return _core.parse_scenario(read_scenario_text(path_text), path_text, pairs)


def loads(text: str, name: str = "<string>", overrides: Overrides | None = None) -> Scenario:
    """Parse and validate TOML text; ``name`` stands for the file name in error messages."""
    check_text(text, "text")
    check_text(name, "name")
    return _core.parse_scenario(text, name, override_pairs(check_overrides(overrides)))


def from_dict(data: Mapping[str, object], name: str = "<dict>", overrides: Overrides | None = None) -> Scenario:
    """Build a scenario from the dict a TOML file would parse to.

    Line numbers in errors refer to the TOML text generated from ``data``; the field names are
    the useful part.
    """
    check_text(name, "name")
    if not isinstance(data, Mapping):
        raise TypeError(
            f"data: expected a dict shaped like a scenario file ({{'simulation': {{...}}, 'link': [...], "
            f"'flow': [...]}}), got {shown(data)} ({type(data).__name__})"
        )
    check_tree(data, "data", name)
    try:
        import tomli_w  # only a scenario given as a dict is written out as TOML

        # numpy/pandas scalars (a dict built from a DataFrame's rows) as the Python numbers they stand for.
        plain: Mapping[str, object] = plain_values(data)  # type: ignore[assignment]
        text = tomli_w.dumps(plain)
    except (TypeError, ValueError) as error:
        raise ScenarioError(f"{name}: cannot convert to TOML: {error}") from error
    return loads(text, name, overrides)


def read_scenario_text(path: str) -> str:
    """The file's text, or a ScenarioError saying in one line why it cannot be used."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise ScenarioError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        # /dev/zero, a log given by mistake: refused before it fills memory.
        raise ScenarioError(
            f"{path}: cannot read: larger than {MAX_FILE_BYTES // 2**20} MiB, which no scenario or sweep file is"
        )

    if b"\0" in data:
        raise ScenarioError(f"{path}: cannot read: binary file (contains NUL bytes), expected TOML text")
    # A byte-order mark, which some editors add, is not an error.
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ScenarioError(
            f"{path}: cannot read: not UTF-8 text (byte 0x{data[error.start]:02x} on line {line})"
        ) from None


def override_pairs(overrides: Overrides | None) -> list[tuple[str, str]]:
    """Overrides as the (KEY, VALUE text) pairs of ``--set KEY=VALUE``."""
    if overrides is None:
        return []
    items = overrides.items() if isinstance(overrides, Mapping) else overrides
    return [(str(key), _value_text(value)) for key, value in items]


def _value_text(value: object) -> str:
    """VALUE text of ``--set KEY=VALUE``: a string as it is, anything else as a TOML value (a dict is an
    inline table, a list an array), so ``{"link.b1.queue": {"discipline": "droptail", "limit": 200}}`` works."""
    if isinstance(value, str):
        return value
    return _toml_value(value)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_value(value: object) -> str:
    if isinstance(value, bool):  # before int: bool is an int subclass, and TOML spells it lowercase
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        # A TOML basic string: JSON's escapes are all valid TOML escapes.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        items = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"override table keys must be strings, not {type(key).__name__} ({key!r})")
            shown = key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)
            items.append(f"{shown} = {_toml_value(item)}")
        return "{ " + ", ".join(items) + " }" if items else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(
        f"override values must be str, int, float, bool, dict (a TOML table) or list, not {type(value).__name__}"
    )


def builtin_scenario_dir() -> Path | None:
    """The ``scenarios/`` directory shipped with aqmlab, if there is one.

    Inside the package when someone bundles it there; otherwise at the repository root, which is
    where it is for a source checkout and an editable install.
    """
    from pathlib import Path  # the built-in scenarios' commands only

    package_dir = Path(__file__).resolve().parent
    for candidate in (package_dir / "scenarios", package_dir.parents[1] / "scenarios"):
        if candidate.is_dir():
            return candidate
    return None


def builtin_scenarios() -> list[Path]:
    """Every ``*.toml`` under the built-in scenario directory, in natural order.

    ``scenarios/sweeps/`` holds sweep descriptions (``aqmlab sweep FILE``), not scenarios.
    """
    directory = builtin_scenario_dir()
    if directory is None:
        return []
    return sorted(
        (path for path in directory.rglob("*.toml") if "sweeps" not in path.relative_to(directory).parts[:-1]),
        key=_natural_key,
    )


def _natural_key(path: Path) -> list[str | int]:
    """fig9 before fig10: digit runs compare as numbers (re.split puts them at odd indices)."""
    return [int(part) if index % 2 else part for index, part in enumerate(re.split(r"(\d+)", str(path)))]
