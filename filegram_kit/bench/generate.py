"""Build FileGramBench items (tracks 1-3, seven sub-tasks) from a trace corpus, deterministically.

    items = build_items("data/corpus", seed=0)

Each sub-task's generator writes every draft it can (understanding.py, reasoning.py,
detection.py); this module then, per sub-task:

1. drops duplicate questions (same question, options and inputs);
2. samples the paper's count (Table 3's footnote), scaled by the corpus' size relative to the
   paper's 640 trajectories; a smaller pool keeps everything it has;
3. places the correct option at a balanced position (for items with n options, positions cycle
   through 0..n-1 in a seeded random order, so each letter is correct equally often);
4. numbers the items (`attrrec_0001`, ...) and optionally rephrases questions through the backend.

Questions name tasks, never personas or tiers; ground truth stays in `correct` and `metadata`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from ..llm.tasks import LETTERS
from . import detection, reasoning, understanding
from .drafts import Draft
from .facts import CorpusFacts, corpus_facts
from .schema import SUB_TRACKS, Item

PAPER_TRAJECTORIES = 640
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


def _unique(drafts: list[Draft]) -> list[Draft]:
    seen, out = set(), []
    for d in drafts:
        if d.key not in seen:
            seen.add(d.key)
            out.append(d)
    return out


def _sample(drafts: list[Draft], n: int, rng: np.random.Generator) -> list[Draft]:
    """n drafts, kept in generation order (the order is by persona and task, which reads well)."""
    if len(drafts) <= n:
        return drafts
    keep = np.sort(rng.choice(len(drafts), size=n, replace=False))
    return [drafts[int(i)] for i in keep]


def _place(drafts: list[Draft], rng: np.random.Generator) -> list[tuple[tuple[str, ...], int]]:
    """(options, correct index) per draft: distractors shuffled, the correct one at a balanced position."""
    positions: dict[int, list[int]] = {}
    out = []
    for d in drafts:
        n = len(d.options)
        if n == 0:
            out.append(((), -1))
            continue
        if not positions.get(n):
            positions[n] = [int(i) for i in rng.permutation(n)]
        where = positions[n].pop()
        others = [d.options[1:][int(i)] for i in rng.permutation(n - 1)]
        out.append((tuple(others[:where] + [d.options[0]] + others[where:]), where))
    return out


def _items(sub_track: str, drafts: list[Draft], rng: np.random.Generator,
           rephrase: Callable[[str], str] | None) -> list[Item]:
    track, abbr = SUB_TRACKS[sub_track][0], SUB_TRACKS[sub_track][1].lower()
    out = []
    for n, (d, (options, where)) in enumerate(zip(drafts, _place(drafts, rng), strict=True), 1):
        question = rephrase(d.question) if rephrase else d.question
        correct = LETTERS[where] if options else d.reference
        out.append(Item(f"{abbr}_{n:04d}", track, sub_track, d.sub_class, d.channel, d.profile_id, d.inputs,
                        question, options, correct, {**d.metadata, "seed_question": d.question} if rephrase
                        else dict(d.metadata)))
    return out


def build_items(corpus: str | Path, *, seed: int = 0, sub_tracks: list[str] | None = None,
                backend: Any = None, progress: bool | None = None) -> list[Item]:
    """Items of the chosen sub-tasks (default all seven) for the corpus; `backend` (optional)
    rephrases each question through its `rephrase_question` task."""
    return items_from_facts(corpus_facts(corpus), seed=seed, sub_tracks=sub_tracks, backend=backend,
                            progress=progress)


def items_from_facts(facts: CorpusFacts, *, seed: int = 0, sub_tracks: list[str] | None = None,
                     backend: Any = None, progress: bool | None = None) -> list[Item]:
    """`build_items` from a corpus' facts (generators need the ground truth only, not the events)."""
    chosen = sub_tracks or list(GENERATORS)
    unknown = [s for s in chosen if s not in GENERATORS]
    if unknown:
        raise ValueError(f"unknown sub-task(s) {unknown}; sub-tasks: {', '.join(GENERATORS)}")
    rephrase = backend.rephrase_question if backend is not None else None
    items: list[Item] = []
    for k, sub_track in enumerate(tqdm(chosen, desc="building items", unit="sub-task",
                                       disable=None if progress is None else not progress)):
        rng = np.random.default_rng([seed, k])
        drafts = _sample(_unique(GENERATORS[sub_track](facts, rng)), target_count(sub_track, facts), rng)
        items += _items(sub_track, drafts, rng, rephrase)
    return items
