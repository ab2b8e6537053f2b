"""`infer_preferences(context) -> tier per dimension, or unknown`: how the acting agent reads its memory.

The offline acting agent is a policy over tiers (engine/policy.py), so before it acts it must turn
the memory's context into tiers. This typed task does that, and it is the only place the context
reaches the offline agent:

- **offline backend**: the shared lexical reader (`answer_mcq`, the same algorithm that answers the
  bench) scores the three tier descriptions of each dimension against the context. A dimension is
  unknown when the context is empty or the best description beats the runner-up by less than
  `UNKNOWN_MARGIN` of the best score: a reader that cannot tell the tiers apart does not guess.
- **a model** (gemini, openai_compat ...): one prompt listing the six dimensions' descriptions, asking
  for L / M / R or "unknown" per dimension as JSON (`PREFERENCE_PROMPT`, versioned by
  `PREFERENCE_VERSION`, which is part of the prompt and so of every cache key). A reply that does
  not parse raises `ParseError`; the caller records it and acts with no preferences.

The descriptions are paper Table 2's tier descriptions with the bench's first behaviour wording:
never the persona's own tier, which the caller does not have (`act.py` passes only the context).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..bench.templates import ASPECT, BEHAVIOUR
from ..llm.prompting import PromptBackend
from ..llm.tasks import ParseError, parse_json
from ..traces.schema import DIMENSION_CODES, DIMENSIONS

if TYPE_CHECKING:
    from ..llm.base import Backend

TIERS = ("L", "M", "R")
UNKNOWN_MARGIN = 0.05  # relative lead the reader's best tier needs over the runner-up
PREFERENCE_VERSION = 1
READER_QUESTION = "From what this memory says about the user, which description best fits how the user {aspect}?"
PREFERENCE_PROMPT = (
    "[infer_preferences v{version}] The context is what a memory system recalled about a user before a new "
    "task. For each aspect below, say which description the context supports: L, M or R, or \"unknown\" when "
    "the context does not show it. Do not guess.\n{aspects}\nReply with JSON only, no prose: "
    '{{"A": "L|M|R|unknown", "B": ..., "C": ..., "D": ..., "E": ..., "F": ...}}')


def tier_text(dimension: str, tier: str) -> str:
    """What a tier of a dimension looks like, in plain words (Table 2 plus the bench's first wording)."""
    return f"{DIMENSIONS[dimension].describe(tier)}: {BEHAVIOUR[dimension][tier][0]}"


def _aspects() -> str:
    return "\n".join(f"{d} ({DIMENSIONS[d].name}): " + "; ".join(f"{t} = {tier_text(d, t)}" for t in TIERS)
                     for d in DIMENSION_CODES)


def _reader_tier(dimension: str, context: str, backend: Backend) -> str | None:
    choices = [tier_text(dimension, t) for t in TIERS]
    answer = backend.answer_mcq(READER_QUESTION.format(aspect=ASPECT[dimension]), choices, context)
    scores = sorted(answer.scores or (), reverse=True)
    if len(scores) >= 2 and (scores[0] <= 0 or scores[0] - scores[1] < UNKNOWN_MARGIN * abs(scores[0])):
        return None
    return TIERS[answer.index]


def _model_tiers(context: str, backend: Backend) -> dict[str, str | None]:
    question = PREFERENCE_PROMPT.format(version=PREFERENCE_VERSION, aspects=_aspects())
    reply = backend.answer_open(question, context, max_words=80)
    data = parse_json("infer_preferences", reply)
    if not isinstance(data, dict):
        raise ParseError("infer_preferences", "expected a JSON object with one key per dimension", reply)
    out: dict[str, str | None] = {}
    for d in DIMENSION_CODES:
        value = str(data.get(d, "unknown")).strip().upper()[:1]
        out[d] = value if value in TIERS else None
    return out


def infer_preferences(context: str, *, backend: Backend) -> dict[str, str | None]:
    """Dimension -> "L" | "M" | "R" | None (unknown) from the context text alone."""
    if not context.strip():
        return dict.fromkeys(DIMENSION_CODES)
    with backend.phase("query"):  # reading memory at query time
        if isinstance(backend, PromptBackend):
            return _model_tiers(context, backend)
        return {d: _reader_tier(d, context, backend) for d in DIMENSION_CODES}


def stated_preference(dimension: str, tier: str) -> str:
    """The oracle-preference context: the user's true tier on one dimension, stated plainly."""
    return (f"## What this user prefers\nWhen it comes to {DIMENSIONS[dimension].name.lower()}, this user "
            f"{BEHAVIOUR[dimension][tier][1]} ({DIMENSIONS[dimension].describe(tier)}).")
