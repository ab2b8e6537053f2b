"""A corpus' columnar event store: a partitioned Parquet copy of its events beside the release layout.

    from filegram_kit.store import EventStore, update_store
    update_store("data/corpus")                    # convert what is new or changed (filegram store)
    trajs = load_trajectories("data/corpus")       # served by the store where it is current
    fp = fingerprints("data/corpus")               # polars scans of the store, millions of events/s

The release layout (signal/<id>/events.json + media/) stays the interchange format and the truth; the
store is a cache of it that is never read when stale (layout.py), built conservatively (fastparse.py)
and row for row what the JSON path gives (convert.py). Media stay in the trajectory folders; the text
a write or edit left is copied into the events table, since the fingerprints read it.
"""

from .build import StoreReport, update_store
from .layout import StoreError, store_code, store_dir
from .read import EventStore, behaviour, per_trajectory

__all__ = ["EventStore", "StoreError", "StoreReport", "behaviour", "per_trajectory", "store_code", "store_dir",
           "update_store"]
