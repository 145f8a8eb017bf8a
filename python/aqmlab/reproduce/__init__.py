"""Reproductions of the experiments of the four papers in ``scenarios/papers/``.

``aqmlab reproduce --list`` lists them; ``aqmlab reproduce ID... --out DIR`` runs them (through
the sweep machinery, over several seeds) and writes, per experiment, ``DIR/ID/comparison.csv``,
``report.md`` and figures, and ``DIR/index.html`` gathering them all.
"""

from __future__ import annotations

from collections.abc import Sequence

from aqmlab.reproduce import choke, choke_flows, choke_models, dks, mankin, zlred
from aqmlab.reproduce.base import Condition, Experiment, Reference

EXPERIMENTS: dict[str, Experiment] = {
    e.id: e
    for e in [
        *choke.EXPERIMENTS,
        *choke_flows.EXPERIMENTS,
        *choke_models.EXPERIMENTS,
        *mankin.EXPERIMENTS,
        *dks.EXPERIMENTS,
        *zlred.EXPERIMENTS,
    ]
}

#: Words that name several experiments at once (besides a paper's directory name).
GROUPS = {
    "all": "every experiment",
    "headline": "the reproductions proper, whose rows the headline counts (no side-by-side experiment)",
}


def select(names: Sequence[str]) -> list[str]:
    """The IDs of the experiments ``names`` name, in the catalogue's order, each once.

    A name is an experiment's ID, ``all``, ``headline`` (the reproductions proper: a side-by-side
    experiment repeats one of them under a condition that is not the paper's) or a paper's
    directory under ``scenarios/papers/`` (``dks-1989``: its every experiment)."""
    from aqmlab.reproduce.published import papers

    paper_names = papers()
    chosen: set[str] = set()
    for name in names:
        if name == "all":
            chosen.update(EXPERIMENTS)
        elif name == "headline":
            chosen.update(i for i, e in EXPERIMENTS.items() if not e.variant_of)
        elif name in paper_names:
            chosen.update(i for i in EXPERIMENTS if i.startswith(name + "-"))
        elif name in EXPERIMENTS:
            chosen.add(name)
        else:
            words = ", ".join([*GROUPS, *paper_names])
            raise ValueError(f"unknown experiment {name!r}: an ID of `aqmlab reproduce --list`, or one of {words}")
    return [i for i in EXPERIMENTS if i in chosen]


__all__ = ["EXPERIMENTS", "GROUPS", "Condition", "Experiment", "Reference", "select"]
