"""Track 2, reasoning: Behavioral Inference and Trace Disentanglement.

- Behavioral Inference (4 choices): a user's sessions on all tasks but one; predict how they would
  work on the held-out task. Options describe the task's active dimensions, as a 2 x 2 grid on two
  of them (understanding.grid_options): the user's tiers, which their other sessions support and
  which the held-out session really showed, and three grid neighbours.
- Trace Disentanglement (2-4 choices): two users' sessions on the same task, their events
  interleaved into one stream, and one dimension on which the users differ and each session showed
  its user's tier (reasoning.streams). Two questions per stream: which contrast holds (a contrast
  on each option dimension; distractor contrasts claim a pair of tiers drawn as often as key pairs
  are on that dimension) and in which aspect they differ. The other options are active dimensions
  on which neither the users nor the sessions differ, so exactly one option is true of both the
  users and the stream; keys are balanced per option set at selection (generate.py). Streams pair
  every two users while a user has at most PARTNERS others (the paper's 20 personas); in a larger
  corpus each user is paired with PARTNERS others (`persona_pairs`), so drafts grow linearly with
  the corpus, not with the square of its users.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..traces.schema import DIMENSION_CODES
from . import evidence as ev
from . import templates as tpl
from .drafts import Draft, input_order
from .ground_truth import CorpusFacts
from .observer import MIN_LOG_ODDS
from .understanding import grid_options, grid_weights

INFERENCE_VARIANTS = 2  # grids per held-out task
MAX_ASPECTS = 4
PAIRS = (("L", "M"), ("L", "R"), ("M", "R"))
PARTNERS = 20  # users a user is paired with in a disentanglement stream (with 21 users or fewer: all others)


def _supported_tier(facts: CorpusFacts, inputs: tuple[str, ...], dim: str, tier: str) -> bool:
    best, margin = ev.usual_tier(facts, inputs, dim)
    return best == tier and margin >= MIN_LOG_ODDS


def behavioral_inference(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    weights = grid_weights(facts, [t for pid in facts.sessions for t in facts.normal(pid)])
    drafts = []
    for pid, sessions in facts.sessions.items():
        tiers = facts.tiers(pid)
        for held_out, tid in sessions.items():
            dims = facts.active(held_out)
            if tid in facts.shifts or len(dims) < 2 or len(sessions) < 4:
                continue
            inputs = input_order([t for task, t in sessions.items() if task != held_out])
            shown = facts.expressed[tid].tiers
            eligible = [d for d in dims if shown[d] == tiers[d] and _supported_tier(facts, inputs, d, tiers[d])]
            pairs = list(itertools.combinations(eligible, 2))
            task = tpl.task_ref(facts.tasks[held_out])
            for k in rng.permutation(len(pairs))[:INFERENCE_VARIANTS]:
                w = int(rng.integers(tpl.WORDINGS))
                options = grid_options({d: tiers[d] for d in dims}, pairs[int(k)], weights, rng)
                drafts.append(Draft("behavioral_inference", "held_out_task", "procedural", pid, inputs,
                                    tpl.QUESTIONS["inference"].format(task=task),
                                    tuple(tpl.prediction(o, w) for o in options),
                                    metadata={"held_out_task": held_out, "dimensions": list(dims),
                                              "grid": list(pairs[int(k)]), "wording": w},
                                    option_facts=tuple({"tiers": o} for o in options)))
    return drafts


@dataclass(frozen=True)
class Stream:
    """Two users' sessions on one task, and one dimension on which both the users and their sessions differ."""

    task_id: str
    a: str  # trajectory ids
    b: str
    dimension: str
    tiers: tuple[str, str]  # what a and b showed on it (their users' tiers)
    others: tuple[str, ...]  # active dimensions on which neither the users nor the sessions differ


def streams(facts: CorpusFacts) -> list[Stream]:
    """Every (pair of unperturbed sessions, task, dimension) where the users differ on the dimension and each
    session showed its user's tier. The options may only hold that dimension and `others`: a dimension on
    which the users differ but the traces do not (or the reverse) is left out, so the key is the one option
    that is both true of the users and visible in the stream."""
    out = []
    for pa, pb in persona_pairs(list(facts.sessions)):
        for task_id in facts.sessions[pa]:
            ta, tb = facts.sessions[pa][task_id], facts.sessions[pb].get(task_id)
            if tb is None or ta in facts.shifts or tb in facts.shifts:
                continue
            dims = facts.active(task_id)
            ea, eb = facts.effective(ta), facts.effective(tb)
            sa, sb = facts.expressed[ta].tiers, facts.expressed[tb].tiers
            differ = [d for d in dims if ea[d] != eb[d] or sa[d] != sb[d]]
            others = tuple(d for d in dims if d not in differ)
            for d in differ:
                if sa[d] == ea[d] and sb[d] == eb[d] and ea[d] != eb[d] and others:
                    out.append(Stream(task_id, ta, tb, d, (sa[d], sb[d]), others))
    return out


def persona_pairs(personas: list[str], partners: int = PARTNERS) -> list[tuple[str, str]]:
    """The user pairs streams are drawn from, in `itertools.combinations(personas, 2)` order: every pair while a
    user has at most `partners` others, else a circulant design (each user paired with the partners / 2 next
    ones on each side of a fixed pseudo-random order, hashed from the ids: no seed, the same for every item
    seed), so every user is in exactly `partners` pairs (`partners` rounded up to even)."""
    n, half = len(personas), -(-partners // 2)
    if n - 1 <= 2 * half:
        return list(itertools.combinations(personas, 2))
    order = sorted(range(n), key=lambda i: (hashlib.blake2b(personas[i].encode(), digest_size=8).digest(), i))
    chosen = {tuple(sorted((order[k], order[(k + j) % n]))) for k in range(n) for j in range(1, half + 1)}
    return [(personas[a], personas[b]) for a, b in sorted(chosen)]


def _option_dims(stream: Stream, rng: np.random.Generator) -> list[str]:
    """The key dimension and up to MAX_ASPECTS - 1 of the stream's other dimensions, at random."""
    rest = [stream.others[int(i)] for i in rng.permutation(len(stream.others))]
    return [stream.dimension, *rest[:MAX_ASPECTS - 1]]


def _pair_weights(all_streams: list[Stream]) -> dict[str, np.ndarray]:
    """Per dimension, how often each unordered tier pair is the key's (distractor pairs are drawn likewise)."""
    seen: dict[str, Counter] = {d: Counter() for d in DIMENSION_CODES}
    for s in all_streams:
        seen[s.dimension][tuple(sorted(s.tiers))] += 1
    out = {}
    for d in DIMENSION_CODES:
        counts = np.array([seen[d][p] + 0.5 for p in PAIRS])
        out[d] = counts / counts.sum()
    return out


def _contrast(dim: str, pair: tuple[str, str], w: int, rng: np.random.Generator) -> str:
    a, b = pair if rng.random() < 0.5 else pair[::-1]
    return tpl.contrast(dim, a, b, w)


def trace_disentanglement(facts: CorpusFacts, rng: np.random.Generator) -> list[Draft]:
    found = streams(facts)
    pair_p = _pair_weights(found)
    drafts = []
    for s in found:
        dims = _option_dims(s, rng)
        first, second = (s.a, s.b) if rng.random() < 0.5 else (s.b, s.a)  # which user the stream lists first
        pid, other = facts.persona_of[s.a], facts.persona_of[s.b]
        meta = {"task_id": s.task_id, "interleave": [first, second], "other_profile": other, "dimension": s.dimension,
                "tiers": list(s.tiers)}
        members = tuple(sorted(dims))  # balanced per option set: each member the key equally often
        balance = {"signature": ("task", s.task_id, members), "key_fact": s.dimension, "members": members}
        task = tpl.task_ref(facts.tasks[s.task_id])
        w = int(rng.integers(tpl.WORDINGS))
        pairs = [tuple(sorted(s.tiers))] + [PAIRS[int(rng.choice(3, p=pair_p[d]))] for d in dims[1:]]
        drafts.append(Draft("trace_disentanglement", "primary_difference", "procedural", pid, (first, second),
                            tpl.QUESTIONS["disentangle"].format(task=task),
                            tuple(_contrast(d, p, w, rng) for d, p in zip(dims, pairs, strict=True)),
                            metadata={**meta, "wording": w},
                            option_facts=tuple({"dimension": d, "tiers": list(p)}
                                               for d, p in zip(dims, pairs, strict=True)), **balance))
        w = int(rng.integers(tpl.WORDINGS))
        drafts.append(Draft("trace_disentanglement", "differing_aspect", "procedural", pid, (first, second),
                            tpl.QUESTIONS["differing_aspect"].format(task=task),
                            tuple(tpl.ASPECT_NOUN[d][w] for d in dims), metadata={**meta, "wording": w},
                            option_facts=tuple({"dimension": d} for d in dims), **balance))
    return drafts
