"""Build FileGramBench items (tracks 1-3, seven sub-tasks) from a trace corpus, deterministically.

    items = build_items("data/corpus", seed=0)
    items, report = build_items_with_report("data/corpus", seed=0)   # + what was drawn, redrawn, kept

Each sub-task's generator writes every draft it can (understanding.py, reasoning.py,
detection.py), several per question where the evidence allows; this module then, per sub-task:

1. keeps only drafts the evidence supports: the ideal observer of the traces (observer.py) picks
   the key clearly and the oracle agrees with it; the rest are the "redrawn" count of the report;
2. drops duplicates (same question, options and inputs);
3. samples the paper's count (Table 3's footnote), scaled by the corpus' size relative to the
   paper's 640 trajectories. Drafts whose option set is a fixed value set (three tiers, the
   languages, a task's aspects) are chosen so each member of the set is the key equally often
   (design.balanced_select); the others were built by an exchangeable design and are sampled at
   random. A sub-class the corpus limits (`SCARCE`: perturbation items, one per perturbed session
   whose shift shows) keeps every supported draft. A smaller pool keeps everything it has, and the
   report says so;
4. places the correct option at a balanced position (for items with n options, positions cycle
   through 0..n-1 in a seeded random order; items whose options are sessions by label keep them in
   label order, the key where its session is);
5. numbers the items (`attrrec_0001`; with seed != 0, `attrrec_s1_0001`, so items of several seeds
   can be answered and scored together) and optionally rephrases questions through the backend.

Questions name tasks, never personas or tiers; ground truth stays in `correct` and `metadata`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..llm.tasks import LETTERS
from ..util.progress import progress_bar
from . import detection, reasoning, understanding
from .design import balanced_select
from .drafts import Draft
from .ground_truth import CorpusFacts, corpus_facts, corpus_version
from .observer import oracle, supported
from .schema import SUB_TRACKS, Item

if TYPE_CHECKING:
    from ..llm.base import Backend

PAPER_TRAJECTORIES = 640
# sub-classes limited by the corpus, not by draws: one item per perturbed session whose shift shows. They keep
# every supported draft, so their share does not depend on how many drafts the other sub-classes wrote.
SCARCE = {"anomaly_detection": "perturbation"}
# sub-tasks whose kept items need their key positions set after selection (options in a fixed session order)
PLACERS: dict[str, Callable[[list[Draft], CorpusFacts], list[Draft]]] = {
    "anomaly_detection": detection.place_perturbation_keys}
GENERATORS: dict[str, Callable[[CorpusFacts, np.random.Generator], list[Draft]]] = {
    "attribute_recognition": understanding.attribute_recognition,
    "behavioral_fingerprint": understanding.behavioral_fingerprint,
    "profile_reconstruction": understanding.profile_reconstruction,
    "behavioral_inference": reasoning.behavioral_inference,
    "trace_disentanglement": reasoning.trace_disentanglement,
    "anomaly_detection": detection.anomaly_detection,
    "shift_analysis": detection.shift_analysis,
}


def target_count(sub_track: str, facts: CorpusFacts) -> int:
    """The paper's count for a sub-task, scaled to this corpus' size."""
    return max(1, round(SUB_TRACKS[sub_track][2] * facts.n_trajectories / PAPER_TRAJECTORIES))


@dataclass(frozen=True)
class SubTaskReport:
    sub_track: str
    drafted: int  # drafts the generator wrote
    redrawn: int  # drafts the evidence did not support (the observer or the oracle disagreed)
    kept: int  # items built
    target: int  # the paper's count, scaled
    unsupported: int = 0  # free-form items kept although the evidence does not show their reference


def evidence_supports(draft: Draft, facts: CorpusFacts) -> bool:
    if not draft.options:
        return True
    item = draft.provisional()
    key = draft.key_index or 0
    return supported(item, key, facts) and oracle(item, facts).index == key


def unique_drafts(drafts: list[Draft]) -> list[Draft]:
    seen, out = set(), []
    for d in drafts:
        if d.key not in seen:
            seen.add(d.key)
            out.append(d)
    return out


def _uniform(drafts: list[Draft], n: int, rng: np.random.Generator) -> list[Draft]:
    if len(drafts) <= n:
        return drafts
    keep = np.sort(rng.choice(len(drafts), size=n, replace=False))
    return [drafts[int(i)] for i in keep]


def _shares(drafts: list[Draft], n: int) -> dict[str, int]:
    """How many of n items each sub-class gets: in proportion to its drafts, at least one each."""
    counts: dict[str, int] = {}
    for d in drafts:
        counts[d.sub_class] = counts.get(d.sub_class, 0) + 1
    total = sum(counts.values())
    shares = {c: max(1, int(n * k / total)) for c, k in counts.items()}
    for c in sorted(counts, key=lambda c: -counts[c]):
        if sum(shares.values()) >= n:
            break
        shares[c] += 1
    return shares


def sample_drafts(drafts: list[Draft], n: int, rng: np.random.Generator, sub_track: str) -> list[Draft]:
    """n drafts: each sub-class its share (trace disentanglement: half each), fixed value sets balanced."""
    classes: dict[str, list[Draft]] = {}
    for d in drafts:
        classes.setdefault(d.sub_class, []).append(d)
    shares = ({c: n // len(classes) + (i < n % len(classes)) for i, c in enumerate(sorted(classes))}
              if sub_track == "trace_disentanglement" else _shares(drafts, n))
    scarce = SCARCE.get(sub_track)
    if scarce in classes and len(classes) > 1:  # every supported draft of it, the other sub-classes the rest
        shares = {scarce: min(n, len(classes[scarce])),
                  **_shares([d for d in drafts if d.sub_class != scarce], n - min(n, len(classes[scarce])))}
    if sub_track == "attribute_recognition":
        shares = {"all": n}
        classes = {"all": drafts}
    chosen: list[Draft] = []
    for c, pool in classes.items():
        fixed = [d for d in pool if d.signature is not None]
        free = [d for d in pool if d.signature is None]
        want = shares[c] if not free else round(shares[c] * len(fixed) / len(pool))
        picked = balanced_select(fixed, want, rng, signature=lambda d: d.signature, key=lambda d: d.key_fact,
                                 members=lambda d: d.members, rank=lambda d: d.rank) if fixed else []
        picked += _uniform(free, shares[c] - len(picked), rng)
        chosen += picked
    order = {id(d): i for i, d in enumerate(drafts)}
    return sorted(chosen, key=lambda d: order[id(d)])


def place_keys(drafts: list[Draft], rng: np.random.Generator) -> list[tuple[tuple[str, ...], tuple[dict, ...], int]]:
    """(options, option facts, correct index) per draft: distractors shuffled, the key at a balanced position."""
    positions: dict[int, list[int]] = {}
    out = []
    for d in drafts:
        n = len(d.options)
        if n == 0:
            out.append(((), (), -1))
            continue
        if d.key_index is not None:
            out.append((d.options, d.option_facts, d.key_index))
            continue
        if not positions.get(n):
            positions[n] = [int(i) for i in rng.permutation(n)]
        where = positions[n].pop()
        order = [1 + int(i) for i in rng.permutation(n - 1)]
        order = order[:where] + [0] + order[where:]
        out.append((tuple(d.options[i] for i in order), tuple(d.option_facts[i] for i in order), where))
    return out


def _items(sub_track: str, drafts: list[Draft], rng: np.random.Generator, seed: int,
           rephrase: Callable[[str], str] | None) -> list[Item]:
    track, abbr = SUB_TRACKS[sub_track][0], SUB_TRACKS[sub_track][1].lower()
    prefix = f"{abbr}_s{seed}" if seed else abbr
    out = []
    for n, (d, (options, option_facts, where)) in enumerate(zip(drafts, place_keys(drafts, rng), strict=True), 1):
        question = rephrase(d.question) if rephrase else d.question
        correct = LETTERS[where] if options else d.reference
        meta = {**d.metadata, "item_seed": seed}
        if option_facts:
            meta["option_facts"] = list(option_facts)
        if rephrase:
            meta["seed_question"] = d.question
        out.append(Item(f"{prefix}_{n:04d}", track, sub_track, d.sub_class, d.channel, d.profile_id, d.inputs,
                        question, options, correct, meta))
    return out


def build_items(corpus: str | Path, *, seed: int = 0, sub_tracks: list[str] | None = None,
                backend: Backend | None = None, progress: bool | None = None) -> list[Item]:
    """Items of the chosen sub-tasks (default all seven) for the corpus; `backend` (optional)
    rephrases each question through its `rephrase_question` task. Built once per process for a corpus as it
    is on disk (the steps of a reproduce run ask for the same item sets again); rephrased ones are not kept."""
    key = None if backend is not None else (corpus_version(corpus), seed, tuple(sub_tracks or ()))
    if key is not None and key in _BUILT:
        _BUILT.move_to_end(key)
        return list(_BUILT[key])
    items = items_from_facts(corpus_facts(corpus), seed=seed, sub_tracks=sub_tracks, backend=backend,
                             progress=progress)[0]
    if key is not None:
        _BUILT[key] = tuple(items)
        while len(_BUILT) > BUILT_MEMO:
            _BUILT.popitem(last=False)
    return items


BUILT_MEMO = 16  # item sets remembered per process (a full reproduce asks for 3 seeds of 2-3 corpora)
_BUILT: OrderedDict[tuple, tuple[Item, ...]] = OrderedDict()


def build_items_with_report(corpus: str | Path, *, seed: int = 0, sub_tracks: list[str] | None = None,
                            backend: Backend | None = None, progress: bool | None = None
                            ) -> tuple[list[Item], list[SubTaskReport]]:
    """`build_items` and, per sub-task, how many drafts were written, redrawn for lack of evidence and kept."""
    return items_from_facts(corpus_facts(corpus), seed=seed, sub_tracks=sub_tracks, backend=backend,
                            progress=progress)


def items_from_facts(facts: CorpusFacts, *, seed: int = 0, sub_tracks: list[str] | None = None,
                     backend: Backend | None = None, progress: bool | None = None
                     ) -> tuple[list[Item], list[SubTaskReport]]:
    """(items, report) from a corpus' facts (generators need the ground truth only, not the events)."""
    chosen = sub_tracks or list(GENERATORS)
    unknown = [s for s in chosen if s not in GENERATORS]
    if unknown:
        raise ValueError(f"unknown sub-task(s) {unknown}; sub-tasks: {', '.join(GENERATORS)}")
    rephrase = backend.rephrase_question if backend is not None else None
    items: list[Item] = []
    report: list[SubTaskReport] = []
    for sub_track in progress_bar(chosen, desc="building items", unit="sub-task",
                                  disable=None if progress is None else not progress):
        rng = np.random.default_rng([seed, list(GENERATORS).index(sub_track)])
        drafts = GENERATORS[sub_track](facts, rng)
        kept = [d for d in drafts if evidence_supports(d, facts)]
        target = target_count(sub_track, facts)
        picked = sample_drafts(unique_drafts(kept), target, rng, sub_track)
        if sub_track in PLACERS:
            picked = PLACERS[sub_track](picked, facts)
        unsupported = sum(1 for d in picked if d.metadata.get("supported") is False)
        report.append(SubTaskReport(sub_track, len(drafts), len(drafts) - len(kept), len(picked), target, unsupported))
        items += _items(sub_track, picked, rng, seed, rephrase)
    return items, report
