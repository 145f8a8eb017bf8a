"""Reproductions of the experiments of the four papers in ``scenarios/papers/``.

``aqmlab reproduce --list`` lists them; ``aqmlab reproduce ID... --out DIR`` runs them (through
the sweep machinery, over several seeds) and writes, per experiment, ``DIR/ID/comparison.csv``,
``report.md`` and figures, and ``DIR/index.html`` gathering them all.
"""

from __future__ import annotations

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

__all__ = ["EXPERIMENTS", "Condition", "Experiment", "Reference"]
