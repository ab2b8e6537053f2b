"""The memory protocol every method follows (FileGramOS and the baselines), and its registry.

scikit-learn shape: `__init__(**params)` only stores parameters; `ingest(trajs, *, backend)`
builds the memory of one user from their trajectories and returns self (learned state ends in
`_`); `retrieve(query, *, backend)` returns the `Context` a reader gets, nothing on the side;
`params()` is what goes into cache keys and result rows.

    memory = get_memory("filegramos", display_chars=500).ingest(trajs, backend=get_backend())
    context = memory.retrieve("How does this user organise folders?", backend=backend)

Memory never sees ground truth: `ingest` refuses trajectories that carry persona tiers or
perturbation tags (`check_no_ground_truth`), and `Profile` objects altogether.
"""

from __future__ import annotations

import functools
import importlib
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..traces.schema import Profile, Trajectory
from ..util.tokens import estimate_tokens

if TYPE_CHECKING:
    from ..llm.base import Backend

# keys that would tell a memory the answer: persona tiers, attribute values, perturbation tags
GROUND_TRUTH_KEYS = frozenset({
    "tiers", "tier", "profile_tiers", "persona", "profile", "attributes", "dimensions",
    "perturbation", "perturbations", "perturbed", "is_perturbed", "perturbed_dimension",
    "from_tier", "to_tier", "dimension",
})


class GroundTruthError(ValueError):
    """An input to a memory carries labels the memory is meant to infer."""


@dataclass(frozen=True)
class Context:
    """What a memory hands the reader: the text, its estimated tokens, and the events it quotes.

    `blocks` keeps the text's parts by heading (for notebooks and ablations); `text` is their
    concatenation and is all a reader may use.
    """

    text: str
    sources: tuple[str, ...] = ()  # event ids of the events whose content or summary is quoted
    blocks: Mapping[str, str] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)

    @classmethod
    def from_blocks(cls, blocks: Mapping[str, str], sources: Iterable[str] = ()) -> Context:
        kept = {name: body for name, body in blocks.items() if body}
        text = "\n\n".join(f"## {name}\n{body}" for name, body in kept.items())
        return cls(text, tuple(dict.fromkeys(sources)), kept)


class MemorySystem:
    """Base class: parameter storage, `params()`, the ground-truth guard and token accounting."""

    name = "memory"

    def __init__(self, **params: Any):
        self._params = dict(params)

    def params(self) -> dict[str, Any]:
        return {"method": self.name, **self._params}

    def ingest_params(self) -> dict[str, Any]:
        """The params that shape what `ingest` builds; the rest only change what `retrieve` shows.
        By default every param does (a method that splits them overrides this)."""
        return self.params()

    def adopt(self, ingested: MemorySystem) -> MemorySystem:
        """This memory, holding `ingested`'s learned state (the `_` attributes) instead of ingesting again:
        how an ablation reads one ingest with several retrieval settings. Refused unless both are the same
        class with the same `ingest_params()` (anything else would be a different memory)."""
        if type(ingested) is not type(self) or ingested.ingest_params() != self.ingest_params():
            raise ValueError(f"{self!r} cannot adopt the memory of {ingested!r}: only the same method with the same "
                             "ingest-time params shares an ingest")
        ingested._check_ingested()
        self.__dict__.update({k: v for k, v in ingested.__dict__.items() if k.endswith("_")})
        return self

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"{type(self).__name__}({shown})"

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> MemorySystem:
        raise NotImplementedError

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        raise NotImplementedError

    def memory_text(self) -> str:
        """Everything the memory stores, as text (what `memory_tokens` counts)."""
        raise NotImplementedError

    def memory_tokens(self) -> int:
        """Stored memory per user in estimated tokens (paper Table 3's storage column)."""
        return estimate_tokens(self.memory_text())

    def _check_ingested(self) -> None:
        if not getattr(self, "ingested_", False):
            raise RuntimeError(f"{type(self).__name__}: call ingest(trajs, backend=...) before retrieve()")


def _leaks(value: Any, where: str) -> str | None:
    """The path of the first ground-truth key inside a JSON-like value, or None (scalars are skipped)."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if str(key).lower() in GROUND_TRUTH_KEYS:
                return f"{where}.{key}"
            if isinstance(inner, Mapping | list | tuple) and (found := _leaks(inner, f"{where}.{key}")):
                return found
    elif isinstance(value, list | tuple):
        for i, inner in enumerate(value):
            if isinstance(inner, Mapping | list | tuple) and (found := _leaks(inner, f"{where}[{i}]")):
                return found
    return None


def by_identity(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Memoise a one-argument function per live object: trajectories are immutable, and a benchmark hands
    the same trajectory object to many memories (entries go when the object does)."""
    memo: dict[int, tuple[weakref.ref, Any]] = {}
    lock = threading.Lock()

    def forget(key: int) -> None:
        with lock:
            memo.pop(key, None)

    @functools.wraps(fn)
    def wrapper(obj: Any) -> Any:
        with lock:
            hit = memo.get(id(obj))
        if hit is not None and hit[0]() is obj:
            return hit[1]
        value, key = fn(obj), id(obj)
        with lock:
            memo[key] = (weakref.ref(obj, lambda _: forget(key)), value)
        return value

    return wrapper


@by_identity
def _trajectory_leak(traj: Trajectory) -> str | None:
    """Where a trajectory carries ground truth ('summary.json.tiers', 'event 3 (file_read): field.x'), or None."""
    found = _leaks(dict(traj.summary), "summary.json")
    if found:
        return found
    for index, event in enumerate(traj.events):
        found = _leaks(dict(event.fields), "field")
        if found:
            return f"event {index} ({event.event_type}): {found}"
    return None


def check_no_ground_truth(trajs: Iterable[Any]) -> list[Trajectory]:
    """The trajectories, if none carries ground truth; otherwise GroundTruthError naming where it is."""
    out = []
    for traj in trajs:
        if isinstance(traj, Profile):
            raise GroundTruthError(f"memory input {traj.id!r} is a Profile (persona tiers): memories learn from "
                                   "trajectories only")
        if not isinstance(traj, Trajectory):
            raise TypeError(f"memory input must be Trajectory objects, got {type(traj).__name__}")
        found = _trajectory_leak(traj)
        if found:
            raise GroundTruthError(f"{traj.id}: {found} carries ground truth; memories must not see it")
        out.append(traj)
    return out


def one_user(trajs: list[Trajectory]) -> str | None:
    """The single user the trajectories belong to (None when unlabelled); a memory holds one user."""
    users = sorted({t.profile_id for t in trajs if t.profile_id})
    if len(users) > 1:
        raise ValueError(f"a memory holds one user; got trajectories of {len(users)}: {', '.join(users[:5])}")
    if not trajs:
        raise ValueError("ingest needs at least one trajectory")
    return users[0] if users else None


# -- registry -------------------------------------------------------------------------------------
MEMORIES: dict[str, str | type] = {
    "filegramos": "filegram_kit.memory.filegramos:FileGramOS",
    "no_context": "filegram_kit.memory.context:NoContext",
    "full_context": "filegram_kit.memory.context:FullContext",
    "naive_rag": "filegram_kit.memory.rag:NaiveRAG",
    "eager_summary": "filegram_kit.memory.eager_summary:EagerSummary",
    "mem0": "filegram_kit.memory.mem0:Mem0",
    "zep": "filegram_kit.memory.zep:Zep",
    "memos": "filegram_kit.memory.memos:MemOS",
    "simplemem": "filegram_kit.memory.simplemem:SimpleMem",
    "evermemos": "filegram_kit.memory.evermemos:EverMemOS",
    "memu": "filegram_kit.memory.memu:MemU",
    "mma": "filegram_kit.memory.mma:MMA",
    "visrag": "filegram_kit.memory.visrag:VisRAG",
}


def register_memory(name: str, target: str | type) -> None:
    """Make `get_memory(name)` build `target`: a `module:Class` reference (baselines, third-party methods; any
    process can import it) or a class (one defined in a notebook: thread executors only)."""
    if isinstance(target, type) and not issubclass(target, MemorySystem):
        raise TypeError(f"register_memory({name!r}, {target.__name__}): a memory class derives from MemorySystem")
    MEMORIES[name] = target


def importable_memories() -> dict[str, str]:
    """The registry's `module:Class` entries: what a spawned worker can import (a class registered in this
    process cannot travel)."""
    return {name: target for name, target in MEMORIES.items() if isinstance(target, str)}


def memory_class(name: str) -> type:
    """The class behind a registered name or a `module:Class` / `file.py:Class` reference (plugins.py)."""
    from ..util.plugins import is_reference, load_class

    target = MEMORIES.get(name)
    if isinstance(target, type):
        return target
    if target is None and not is_reference(name):
        raise KeyError(f"unknown memory {name!r}; memories: {', '.join(sorted(MEMORIES))}, or your own class as "
                       "'module:Class' / 'path/to/file.py:Class'")
    if target is None:
        return load_class(name, kind="memory", base=MemorySystem)
    module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def get_memory(name: str, **params: Any) -> MemorySystem:
    """A memory method by name (or `module:Class` reference), with its parameters (nothing is computed until
    `ingest`)."""
    return memory_class(name)(**params)
