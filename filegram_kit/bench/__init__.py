"""FileGramBench: QA items built from the traces (tracks 1-4), a shared reader, and the harness.

The entry points, importable from here (loaded on first use, so `import filegram_kit.bench` stays light):

    items = build_items("data/corpus", seed=0)             # or load_items("items.parquet") / write_items(items, path)
    rows = evaluate(items, "data/corpus", ["no_context", "filegramos"], out="runs/a", executor="auto")
    print(format_table3(table3(rows)))                      # paper Table 3's layout
    print(format_readout(readout(rows)))                    # CIs by persona, paired differences, the controls
"""

from importlib import import_module
from typing import Any

from .schema import CHANNELS, FIELDS, SUB_TRACKS, TRACKS, Item

_ENTRY_POINTS = {
    "build_items": "generate", "load_items": "items", "write_items": "items", "evaluate": "harness",
    "load_results": "harness", "table3": "score", "format_table3": "score", "evaluate_controls": "controls",
    "build_file_grounding": "file_grounding", "readout": "analysis", "format_readout": "analysis",
}

__all__ = ["CHANNELS", "FIELDS", "SUB_TRACKS", "TRACKS", "Item", *_ENTRY_POINTS]


def __getattr__(name: str) -> Any:
    if name in _ENTRY_POINTS:
        return getattr(import_module(f".{_ENTRY_POINTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
