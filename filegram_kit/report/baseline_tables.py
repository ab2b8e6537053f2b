"""Paper Table 12 (baseline implementation summary), generated from the memory registry itself.

Every row is read from the code, never typed: the method's module docstring (its first sentence is
the mechanism), `params()` of a default instance (the constants a run records), the typed backend
tasks its module calls (`backend.<task>(`; the embedding helpers count as `embed`). Change a
baseline and this table changes with it.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import polars as pl

from ..bench.score import METHOD_LABELS
from .registry import artifact

_CALL = re.compile(r"backend\.(\w+)\(")
_HELPERS = {"embed_documents(": "embed"}  # helpers in memory/ that call a typed task for the module


def _sources(module_name: str) -> list[Path]:
    """The files of a memory's module (every module of a package such as filegramos)."""
    module = importlib.import_module(module_name)
    path = Path(inspect.getfile(module))
    return sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]


def typed_tasks(module_name: str) -> list[str]:
    """The typed backend tasks a memory's code calls, in first-use order."""
    from ..llm.tasks import TASKS

    found: list[str] = []
    for path in _sources(module_name):
        text = path.read_text(encoding="utf-8")
        calls = [m[1] for m in _CALL.finditer(text)] + [t for h, t in _HELPERS.items() if h in text]
        found += [{"embed_images": "embed_image"}.get(c, c) for c in calls]
    return [t for t in dict.fromkeys(found) if t in TASKS]


def mechanism(target: str, shared: bool) -> str:
    """The first sentence of the module docstring (of the class's, when its module holds several methods)."""
    module_name, _, class_name = target.partition(":")
    module = importlib.import_module(module_name)
    doc = inspect.getdoc(getattr(module, class_name) if shared else module) or ""
    first = " ".join(doc.split("\n\n")[0].split())
    return first.split(". ")[0].rstrip(".") + "." if first else ""


def baseline_rows(methods: list[str] | None = None) -> pl.DataFrame:
    from ..memory import get_memory
    from ..memory.base import MEMORIES, importable_memories

    rows = []
    modules = [target.partition(":")[0] for target in importable_memories().values()]
    for name in methods or [m for m in METHOD_LABELS if m in MEMORIES]:
        module_name = MEMORIES[name].partition(":")[0]
        params = {k: v for k, v in get_memory(name).params().items() if k != "method"}
        shared = modules.count(module_name) > 1
        rows.append({"method": name, "label": METHOD_LABELS.get(name, name),
                     "mechanism": mechanism(MEMORIES[name], shared),
                     "typed tasks": ", ".join(typed_tasks(module_name)) or "(none)",
                     "parameters": ", ".join(f"{k}={v}" for k, v in params.items()) or "(none)",
                     "module": module_name.removeprefix("filegram_kit.")})
    return pl.DataFrame(rows)


@artifact("table12_baselines", paper="Table 12", notebook="05_benchmark",
          title="Baseline implementation summary, read from the memory registry (params, docstrings, typed tasks)",
          note="Generated from the code: mechanism = the first sentence of each method's module docstring; "
               "typed tasks = the backend tasks its module calls (the same code runs offline and with an LLM); "
               "parameters = params() of the default instance, as every result row records them.")
def table12_baselines() -> pl.DataFrame:
    return baseline_rows()
