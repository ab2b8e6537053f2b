"""What an evaluation runs, below the harness: methods with their resolved params, items grouped by the input set
a memory is built from, each group's ingest (shared across methods and parameter sets where it can be) and
answers. The harness (harness.py) orders and records the work; the parallel runners (parallel.py) spread the
groups over threads, processes or Ray. Both import from here, never from each other's internals.
"""

from __future__ import annotations

import hashlib
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..llm.cache import canonical_json
from ..memory import get_memory
from ..util.plugins import code_digest, is_reference
from .inputs import TrajectoryStore, materialise
from .reader import answer
from .results import RESULT_SCHEMA
from .schema import Item

if TYPE_CHECKING:
    from ..llm.base import Backend

# -- what to run --------------------------------------------------------------------------------------------------


def short_hash(value: Any) -> str:
    """First 12 hex of the sha256 of a value's canonical JSON."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Method:
    name: str
    params: dict[str, Any]  # as given to get_memory
    resolved: dict[str, Any]  # memory.params(): what the hash is of
    params_hash: str
    ingest_hash: str = ""  # of memory.ingest_params(): methods with equal hashes share one ingest per input set


MethodSpec = str | tuple[str, Mapping[str, Any] | None]


def resolve_methods(methods: Iterable[MethodSpec] | Mapping[str, Mapping[str, Any] | None]) -> list[Method]:
    """Names, name -> params, or (name, params) pairs (several parameter sets of one method: an ablation)
    as `Method`s with their resolved params and hashes (nothing is ingested)."""
    pairs = methods.items() if isinstance(methods, Mapping) else (
        (m, None) if isinstance(m, str) else tuple(m) for m in methods)
    out, seen = [], set()
    for name, params in pairs:
        params = dict(params or {})
        memory = get_memory(name, **params)
        resolved = memory.params()
        if is_reference(name) and (digest := code_digest(type(memory))):
            resolved = {**resolved, "code": digest}  # your class's file: edited code gets new rows, not old ones
        method = Method(name, params, resolved, short_hash(resolved), short_hash(memory.ingest_params()))
        if (name, method.params_hash) in seen:
            raise ValueError(f"method {name!r} is listed twice with the same resolved params {resolved}")
        seen.add((name, method.params_hash))
        out.append(method)
    if not out:
        raise ValueError("evaluate needs at least one method")
    return out


def input_set(item: Item) -> tuple[str, ...]:
    """What a memory is built from: the interleaved pair (in order), the labelled sessions (id=label, in
    order: the labels are part of what is ingested) or the set of trajectory ids (sorted)."""
    pair = item.metadata.get("interleave")
    if pair:
        return ("interleave", *pair)
    labels = item.metadata.get("labels")
    if labels:
        return ("labelled", *(f"{t}={labels[t]}" for t in item.input_trajectories))
    return tuple(sorted(set(item.input_trajectories)))


def trajectory_ids(key: tuple[str, ...]) -> tuple[str, ...]:
    """The trajectory ids of an input set (`input_set`'s value)."""
    if key and key[0] == "interleave":
        return key[1:]
    if key and key[0] == "labelled":
        return tuple(k.split("=", 1)[0] for k in key[1:])
    return key


def select(items: Iterable[Item], limit: int | None) -> list[Item]:
    """At most `limit` items per sub_track, the first ones in item order (all when limit is None)."""
    if limit is None:
        return list(items)
    seen: dict[str, int] = {}
    out = []
    for item in items:
        seen[item.sub_track] = seen.get(item.sub_track, 0) + 1
        if seen[item.sub_track] <= limit:
            out.append(item)
    return out


@dataclass(eq=False)
class Group:
    """One method's items that share an input set; holds the ingested memory while they are answered."""

    method: Method
    key: tuple[str, ...]
    items: list[Item]
    memory: Any = None
    memory_tokens: int | None = None
    ingest_s: float | None = None
    ingest_cost: dict[str, int] | None = None  # the memory's ingest_cost_ (memory/stages.py)
    error: tuple[str, str] | None = None
    remaining: int = 0

    @property
    def input_key(self) -> str:
        return short_hash(list(self.key))


def make_groups(methods: list[Method], items: list[Item], skip: Callable[[Method, Item], bool]) -> list[Group]:
    """The groups of items not yet answered: input sets in order of first appearance, each method in turn
    (so the methods that need an input set ingest it one after another, from one materialisation)."""
    by_key: dict[tuple[str, ...], dict[str, Group]] = {}
    for item in items:
        for method in methods:
            if not skip(method, item):
                per_method = by_key.setdefault(input_set(item), {})
                tag = f"{method.name}#{method.params_hash}"
                if tag not in per_method:
                    per_method[tag] = Group(method, input_set(item), [])
                per_method[tag].items.append(item)
    return [group for per_method in by_key.values() for group in per_method.values()]


class SharedInputs:
    """Each input set's trajectories, materialised once and handed to every method that ingests it,
    then dropped (thread-safe: a second method waits for the first one's materialisation)."""

    def __init__(self, store: TrajectoryStore, groups: list[Group]):
        self.store, self._users = store, Counter(g.key for g in groups)
        self._built: dict[tuple[str, ...], list[Any]] = {}
        self._locks: dict[tuple[str, ...], threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, group: Group) -> list[Any]:
        with self._lock:
            key_lock = self._locks.setdefault(group.key, threading.Lock())
        try:
            with key_lock:
                if group.key not in self._built:
                    self._built[group.key] = materialise(group.items[0], self.store)  # a failure is not kept
                return self._built[group.key]
        finally:
            self.release(group)

    def release(self, group: Group) -> None:
        """This group is done with its input set (it took it, or never needs it): the last one drops it."""
        with self._lock:
            self._users[group.key] -= 1
            if self._users[group.key] <= 0:
                self._built.pop(group.key, None)
                self._locks.pop(group.key, None)


class SharedIngests:
    """One ingest per (method, ingest-time params, input set): a group whose method differs from an earlier
    one only in retrieval params adopts that memory (`MemorySystem.adopt`) instead of ingesting again, so an
    ablation over retrieval knobs costs one ingest. Thread-safe; an entry is dropped once its last group took it."""

    def __init__(self, groups: list[Group]):
        self._users = Counter(self.tag(g) for g in groups)
        self._built: dict[tuple, Group] = {}
        self._locks: dict[tuple, threading.Lock] = {}
        self._lock = threading.Lock()

    @staticmethod
    def tag(group: Group) -> tuple:
        return group.method.name, group.method.ingest_hash, group.key

    def shared(self, group: Group, build: Callable[[], None]) -> Group | None:
        """The group that ingested this group's memory (after `build()` made it this one, when none had)."""
        tag = self.tag(group)
        with self._lock:
            key_lock = self._locks.setdefault(tag, threading.Lock())
        try:
            with key_lock:
                first = self._built.get(tag)
                if first is None:
                    build()
                    if group.memory is not None:  # a failed ingest is not shared: the next group tries anew
                        self._built[tag] = replace(group, items=[])  # keeps the memory after the group drops it
                    return None
                return first
        finally:
            with self._lock:
                self._users[tag] -= 1
                if self._users[tag] <= 0:
                    self._built.pop(tag, None)
                    self._locks.pop(tag, None)


def preload(store: TrajectoryStore, groups: list[Group]) -> None:
    """One bulk load of the groups' trajectories; a broken one is then reported by its groups ("inputs" rows)."""
    try:
        store.preload(sorted({t for g in groups for t in trajectory_ids(g.key)}))
    except Exception as exc:
        warnings.warn(f"{store.corpus}: bulk loading failed ({_message(exc)}); loading per input set", stacklevel=3)


# -- per-item backend usage (cache hits, reader tokens) -----------------------------------------------------------


class ThreadTally:
    """Stands in for a backend's UsageMeter during a run: counts as before, and also per item (per thread)."""

    def __init__(self, inner: Any):
        self.inner, self._local = inner, threading.local()

    def add(self, phase: str, **amounts: int) -> None:
        self.inner.add(phase, **amounts)
        tally = getattr(self._local, "tally", None)
        if tally is not None:
            for key, value in amounts.items():
                tally[key] = tally.get(key, 0) + value

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @contextmanager
    def track(self):
        self._local.tally = tally = {}
        try:
            yield tally
        finally:
            self._local.tally = None


@contextmanager
def tallied(backend: Backend):
    """The backend's usage meter swapped for a ThreadTally for the duration of the block."""
    original = backend.usage
    backend.usage = tally = ThreadTally(original)
    try:
        yield tally
    finally:
        backend.usage = original


def _cache_hit(backend: Backend, tally: Mapping[str, int]) -> bool | None:
    """True when every backend call of the item came from the cache; None when unknowable (no cache, no calls)."""
    if getattr(backend, "cache", None) is None or not (tally.get("calls") or tally.get("cached")):
        return None
    return not tally.get("calls")


# -- one group, one item ------------------------------------------------------------------------------------------


def _message(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


def ingest_group(group: Group, inputs: SharedInputs, backend: Backend, ingests: SharedIngests | None = None) -> Group:
    """Get the inputs, ingest them once, count the stored tokens (`ingest_s` times these two); failures are
    kept on the group. With `ingests`, a memory another group already ingested is adopted (its ingest cost
    and seconds are the shared build's: what a fresh build of this memory costs)."""
    if ingests is None:
        return _ingest(group, inputs, backend)
    first = ingests.shared(group, lambda: _ingest(group, inputs, backend))
    if first is not None:
        inputs.release(group)
        try:
            group.memory = get_memory(group.method.name, **group.method.params).adopt(first.memory)
        except Exception as exc:
            group.error = ("ingest", _message(exc))
        group.memory_tokens, group.ingest_s, group.ingest_cost = first.memory_tokens, first.ingest_s, first.ingest_cost
    return group


def _ingest(group: Group, inputs: SharedInputs, backend: Backend) -> Group:
    try:
        trajs = inputs.get(group)
    except Exception as exc:
        group.error = ("inputs", _message(exc))
        return group
    start = time.perf_counter()
    try:
        with backend.phase("ingest"):
            memory = get_memory(group.method.name, **group.method.params).ingest(trajs, backend=backend)
        group.memory_tokens = int(memory.memory_tokens())
        group.ingest_cost = getattr(memory, "ingest_cost_", None)
        group.memory = memory
    except Exception as exc:
        group.error = ("ingest", _message(exc))
    group.ingest_s = time.perf_counter() - start
    return group


def answer_item(group: Group, item: Item, backend: Backend, tally: ThreadTally) -> dict[str, Any]:
    """The result fields of one item: retrieve with the question, answer with the shared reader."""
    with tally.track() as counts:
        start = time.perf_counter()
        fields: dict[str, Any] = {}
        try:
            with backend.phase("query"):
                context = group.memory.retrieve(item.question, backend=backend)
            fields["context_tokens"] = int(context.tokens)
        except Exception as exc:
            fields.update(error="retrieve", error_message=_message(exc))
        else:
            try:
                reply = answer(item, context, backend=backend)
                fields.update(answer=reply.answer, score=reply.score, is_correct=reply.is_correct, likert=reply.likert,
                              confidence=reply.confidence, rationale=reply.rationale or None, error=reply.error,
                              error_message=reply.rationale if reply.error else None)
            except Exception as exc:
                fields.update(error="answer", error_message=_message(exc))
        fields["latency_s"] = round(time.perf_counter() - start, 6)
    fields.update(cache_hit=_cache_hit(backend, counts), reader_tokens_in=counts.get("input_tokens", 0),
                  reader_tokens_out=counts.get("output_tokens", 0))
    return fields


def make_row(group: Group, item: Item, fields: Mapping[str, Any], run: Mapping[str, Any]) -> dict[str, Any]:
    row = dict.fromkeys(RESULT_SCHEMA)
    row.update(method=group.method.name, params_hash=group.method.params_hash, backend=run["backend"],
               model=run["model"], question_id=item.question_id, seed=run["seed"],
               item_seed=int(item.metadata.get("item_seed", 0)), profile_id=item.profile_id, control=False,
               sub_track=item.sub_track,
               channel=item.channel, mcq=item.is_mcq, input_key=group.input_key, memory_tokens=group.memory_tokens,
               ingest_s=None if group.ingest_s is None else round(group.ingest_s, 6))
    if group.ingest_cost is not None:
        cost = group.ingest_cost
        row.update(ingest_calls=cost["calls"], ingest_tokens_in=cost["input_tokens"],
                   ingest_tokens_out=cost["output_tokens"], ingest_est_tokens_in=cost["est_input_tokens"],
                   ingest_est_tokens_out=cost["est_output_tokens"])
    row.update(fields)
    return row


# -- evaluate -----------------------------------------------------------------------------------------------------
