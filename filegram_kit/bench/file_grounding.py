"""Track 4 File Grounding: Track 1-3 questions whose evidence is in the user's outputs, to be answered
from the multimodal setting (the same event logs, the outputs rendered as files: filegram_kit/multimodal).

    items, report = build_file_grounding("data/corpus", seed=0)       # 550 at the paper's 640 trajectories
    evaluate(items, "data/corpus_multimodal", methods, ...)            # the multimodal setting
    evaluate(items, "data/corpus", methods, ...)                       # the same items, text setting

The paper: "answer the same behavioral questions as Tracks 1-3, but with file outputs presented as
rendered PDFs and images" (550, mixed). So the drafts come from the six multiple-choice generators of
Tracks 1-3, drawn with File Grounding's own seed stream, and a draft is kept only when

- its evidence is in the outputs (`output_evidence`): a question about production (B) or cross-modal
  behaviour (F), an attribute under those dimensions, the language or role the outputs are written in,
  or a whole-profile question (a portrait, a held-out task, an impostor session), whose evidence
  includes every output; questions about reading, folders, edits or deletions alone are not; and
- the evidence supports its key exactly as for Tracks 1-3 (the ideal observer picks it clearly and the
  oracle agrees), with the same key balancing and placement (generate.py).

Options that name an aspect of behaviour (which aspect shifted, which changed how, in which aspect two users
differ) keep only the aspects the outputs show (`output_options`): the key is always one, so a distractor
about reading or folders would mark itself as wrong to a reader of the options alone (the choices-only
adversary found 61.5% on shifted_dimension once, chance 25). Such a draft keeps at least two options, and
its key's aspect is balanced over the option set (generate.py's signatures).

Each source sub-task gets a share of the 550 in proportion to its paper count. An item keeps its
source's sub_class (so the observer, the oracle and the audit read it as they read the source), names
the source in `metadata["source_sub_track"]`, and says `metadata["setting"] = "multimodal"`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from ..llm.tasks import LETTERS
from ..traces.schema import ATTRIBUTES
from .drafts import Draft
from .generate import (
    GENERATORS,
    PAPER_TRAJECTORIES,
    PLACERS,
    SubTaskReport,
    evidence_supports,
    place_keys,
    sample_drafts,
    unique_drafts,
)
from .ground_truth import CorpusFacts, corpus_facts
from .schema import SUB_TRACKS, Item

SUB_TRACK, TRACK, ABBR, PAPER_COUNT = "file_grounding", "T4_multimodal", "FileGrd", 550
SETTING = "multimodal"
SOURCES = tuple(s for s, (track, _, _, options) in SUB_TRACKS.items()
                if options != (0, 0) and track != TRACK)  # the six MCQ sub-tasks of Tracks 1-3
OUTPUT_DIMENSIONS = frozenset({"B", "F"})
OUTPUT_IDENTITY = frozenset({"language", "role"})
_SEED_STREAM = 100  # File Grounding's generator seeds: [seed, 100 + source index], apart from Tracks 1-3'


def output_evidence(draft: Draft) -> bool:
    """Whether the draft's evidence includes the user's outputs (see the module docstring)."""
    attribute, dimension = draft.metadata.get("attribute"), draft.metadata.get("dimension")
    if attribute:
        known = ATTRIBUTES.get(attribute)
        return attribute in OUTPUT_IDENTITY or bool(known and OUTPUT_DIMENSIONS & set(known.dimensions))
    if dimension:
        return dimension in OUTPUT_DIMENSIONS
    return True


def output_options(draft: Draft) -> Draft | None:
    """The draft with only the options about an aspect its outputs show, when its options each name an aspect
    (`option_facts[k]["dimension"]`); None when fewer than two such options remain. Other drafts unchanged."""
    dims = [f.get("dimension") for f in draft.option_facts]
    if not dims or None in dims or len(set(dims)) == 1:
        return draft  # not a choice between aspects (or all options on the key's own aspect)
    keep = [k for k, d in enumerate(dims) if d in OUTPUT_DIMENSIONS]
    if len(keep) < 2 or keep[0] != 0:
        return None
    shown = tuple(sorted({dims[k] for k in keep}))
    return replace(draft, options=tuple(draft.options[k] for k in keep),
                   option_facts=tuple(draft.option_facts[k] for k in keep),
                   signature=("output aspects", draft.sub_class, shown), key_fact=dims[0], members=shown)


def source_shares(total: int) -> dict[str, int]:
    """`total` items over the source sub-tasks, in proportion to their paper counts (largest remainders)."""
    counts = {s: SUB_TRACKS[s][2] for s in SOURCES}
    exact = {s: total * c / sum(counts.values()) for s, c in counts.items()}
    shares = {s: int(x) for s, x in exact.items()}
    for s in sorted(exact, key=lambda s: (shares[s] - exact[s], SOURCES.index(s)))[:total - sum(shares.values())]:
        shares[s] += 1
    return shares


def target_count(facts: CorpusFacts) -> int:
    """550, scaled by the corpus' size relative to the paper's 640 trajectories."""
    return max(1, round(PAPER_COUNT * facts.n_trajectories / PAPER_TRAJECTORIES))


def _drafts(facts: CorpusFacts, seed: int, source: str, want: int) -> tuple[list[Draft], int, int]:
    """(picked drafts, drafted, kept) of one source sub-task."""
    rng = np.random.default_rng([seed, _SEED_STREAM + SOURCES.index(source)])
    drafts = GENERATORS[source](facts, rng)
    shown = [output_options(d) for d in drafts if output_evidence(d)]
    kept = [d for d in shown if d is not None and evidence_supports(d, facts)]
    picked = sample_drafts(unique_drafts(kept), want, rng, source) if kept else []
    if source in PLACERS:
        picked = PLACERS[source](picked, facts)
    return picked, len(drafts), len(kept)


def _item(n: int, draft: Draft, placed: tuple, seed: int) -> Item:
    options, option_facts, where = placed
    prefix = f"{ABBR.lower()}_s{seed}" if seed else ABBR.lower()
    meta = {**draft.metadata, "item_seed": seed, "source_sub_track": draft.sub_track, "setting": SETTING,
            "option_facts": list(option_facts)}
    return Item(f"{prefix}_{n:04d}", TRACK, SUB_TRACK, draft.sub_class, draft.channel, draft.profile_id,
                draft.inputs, draft.question, options, LETTERS[where], meta)


def file_grounding_from_facts(facts: CorpusFacts, *, seed: int = 0) -> tuple[list[Item], SubTaskReport]:
    """(items, report) of File Grounding for a corpus' facts."""
    target = target_count(facts)
    picked: list[Draft] = []
    drafted = kept = 0
    for source, want in source_shares(target).items():
        chosen, n_drafted, n_kept = _drafts(facts, seed, source, want)
        picked += chosen
        drafted, kept = drafted + n_drafted, kept + n_kept
    rng = np.random.default_rng([seed, _SEED_STREAM + len(SOURCES)])
    items = [_item(n, d, placed, seed) for n, (d, placed) in enumerate(zip(picked, place_keys(picked, rng),
                                                                             strict=True), 1)]
    return items, SubTaskReport(SUB_TRACK, drafted, drafted - kept, len(items), target)


def build_file_grounding(corpus: str | Path, *, seed: int = 0) -> tuple[list[Item], SubTaskReport]:
    """File Grounding items for a (text or multimodal) corpus: both share their facts."""
    return file_grounding_from_facts(corpus_facts(corpus), seed=seed)
