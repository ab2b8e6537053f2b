"""FileGramBench: QA items built from the traces (tracks 1-3), a shared reader, and the harness."""

from .schema import CHANNELS, FIELDS, SUB_TRACKS, TRACKS, Item

__all__ = ["CHANNELS", "FIELDS", "SUB_TRACKS", "TRACKS", "Item"]
