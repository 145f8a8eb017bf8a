"""Checks of the public API's arguments: a wrong type or value names the parameter, what is allowed
and a form that works, instead of surfacing as a Python error from deep inside.

Numbers may be any real or integral number type, numpy's and pandas' scalars included (a pandas
column yields ``numpy.int64``): they become the Python ``int`` or ``float`` of the same value.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from aqmlab._core import ScenarioError

MAX_SEED = 2**64 - 1
# Deeper than any scenario or sweep (a scenario nests 4 levels: link.queue.params...); far below
# Python's recursion limit, which the TOML writer would otherwise hit.
MAX_DEPTH = 32


def type_name(value: object) -> str:
    return type(value).__name__


def shown(value: object, limit: int = 60) -> str:
    """``value`` for a one-line message: its repr, control characters escaped, cut to ``limit``."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def plain_number(value: object) -> object:
    """numpy/pandas and other numeric scalars as the Python int or float of the same value;
    anything else unchanged (bool stays bool)."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__.split(".")[0] in ("numpy", "pandas"):
        try:
            unwrapped = item()
        except (TypeError, ValueError):
            return value
        if isinstance(unwrapped, (bool, int, float, str)):
            return unwrapped
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def plain_values(value: object) -> object:
    """:func:`plain_number` applied throughout dicts and lists (override values may be tables and arrays)."""
    if isinstance(value, Mapping):
        return {key: plain_values(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_values(item) for item in value]
    return plain_number(value)


def check_seed(seed: object, parameter: str = "seed") -> int | None:
    """None (the scenario's own seed) or an integer from 0 to 2^64-1."""
    if seed is None:
        return None
    value = plain_number(seed)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"{parameter}: expected an integer from 0 to 2^64-1 (or None for the scenario's seed), "
            f"got {shown(seed)} ({type_name(seed)}); e.g. {parameter}=3"
        )
    if not 0 <= value <= MAX_SEED:
        raise ValueError(f"{parameter}: expected an integer from 0 to 2^64-1, got {value}")
    return value


def check_flag(value: object, parameter: str, allow_none: bool = False) -> bool | None:
    value = plain_number(value)
    if value is None and allow_none:
        return None
    if not isinstance(value, bool):
        allowed = "True, False or None" if allow_none else "True or False"
        raise TypeError(f"{parameter}: expected {allowed}, got {shown(value)} ({type_name(value)})")
    return value


def check_path(value: object, parameter: str) -> str:
    """A path as text: a str or os.PathLike, not empty, without NUL."""
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{parameter}: expected a path (str or pathlib.Path), got {shown(value)} ({type_name(value)})")
    text = os.fspath(value)
    if isinstance(text, bytes):
        raise TypeError(f"{parameter}: expected a text path (str or pathlib.Path), got bytes {shown(text)}")
    if not text:
        raise ValueError(f"{parameter}: the path is empty")
    if "\0" in text:
        raise ValueError(f"{parameter}: the path {shown(text)} contains a NUL character")
    return text


def check_text(value: object, parameter: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{parameter}: expected a str, got {shown(value)} ({type_name(value)})")
    return value


def check_overrides(overrides: object, parameter: str = "overrides") -> list[tuple[str, Any]]:
    """``{KEY: VALUE}`` or ``[(KEY, VALUE), ...]`` as a list of pairs, numbers made plain.

    Values are checked by the scenario loader (what it accepts is its business); keys must be
    non-empty strings, and a single 'KEY=VALUE' string, the command line's form, is refused with
    the form that works.
    """
    if overrides is None:
        return []
    example = "{'flow.udp.rate': '1Mbps'} or [('flow.udp.rate', '1Mbps')]"
    if isinstance(overrides, (str, bytes)):
        text = overrides.decode(errors="replace") if isinstance(overrides, bytes) else overrides
        key, equals, value = text.partition("=")
        hint = f"{{{key.strip()!r}: {value.strip()!r}}}" if equals and key.strip() else example
        raise TypeError(
            f"{parameter}: expected a dict {{KEY: VALUE}} or a list of (KEY, VALUE) pairs, got the string "
            f"{shown(text)}; write {hint}"
        )
    if isinstance(overrides, Mapping):
        items: Iterable[object] = list(overrides.items())
    elif isinstance(overrides, Iterable):
        items = list(overrides)
    else:
        raise TypeError(
            f"{parameter}: expected a dict {{KEY: VALUE}} or a list of (KEY, VALUE) pairs, "
            f"got {shown(overrides)} ({type_name(overrides)}); e.g. {example}"
        )
    pairs = []
    for position, item in enumerate(items):
        if isinstance(item, (str, bytes)) or not isinstance(item, (tuple, list)) or len(item) != 2:
            raise TypeError(
                f"{parameter}[{position}]: expected a (KEY, VALUE) pair, got {shown(item)} ({type_name(item)}); "
                f"e.g. {example}"
            )
        key, value = item
        if not isinstance(key, str) or not key.strip():
            raise TypeError(
                f"{parameter}: a key must be a non-empty string (a --set key such as 'flow.udp.rate'), "
                f"got {shown(key)} ({type_name(key)})"
            )
        check_tree(value, key, parameter)  # a value may be a table or array: bounded before it is walked
        pairs.append((key, plain_values(value)))
    return pairs


def check_tree(data: object, parameter: str, source: str) -> None:
    """A dict (of dicts and lists) that refers to itself or nests more than MAX_DEPTH levels is a
    ScenarioError, found without recursion (the TOML writer would overflow Python's stack)."""
    stack: list[tuple[object, int, tuple[str, ...]]] = [(data, 1, ())]
    open_containers: dict[int, int] = {}  # id -> depth, for the containers on the current path
    path_of: list[int] = []
    while stack:
        node, depth, where = stack.pop()
        while path_of and open_containers[path_of[-1]] >= depth:
            del open_containers[path_of.pop()]
        if not isinstance(node, (Mapping, list, tuple)):
            continue
        name = ".".join(where) or "(top)"
        if id(node) in open_containers:
            raise ScenarioError(f"{source}: {parameter}: {name} contains itself (a dict or list that refers to itself)")
        if depth > MAX_DEPTH:
            raise ScenarioError(f"{source}: {parameter}: nested more than {MAX_DEPTH} levels deep at {shown(name)}")
        open_containers[id(node)] = depth
        path_of.append(id(node))
        children = node.items() if isinstance(node, Mapping) else enumerate(node)
        for key, child in reversed(list(children)):
            stack.append((child, depth + 1, (*where, str(key))))
