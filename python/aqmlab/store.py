"""The sweep results store; it lives in :mod:`aqmlab.sweep.store`, imported here under its older name."""

from aqmlab.sweep.store import (
    RESULT_TABLES,
    STORE_FORMAT,
    TABLES,
    NotAStoreError,
    PlanRow,
    RunRecord,
    Store,
    StoreError,
    quote,
    stale_warning,
)

__all__ = [
    "RESULT_TABLES",
    "STORE_FORMAT",
    "TABLES",
    "NotAStoreError",
    "PlanRow",
    "RunRecord",
    "Store",
    "StoreError",
    "quote",
    "stale_warning",
]
