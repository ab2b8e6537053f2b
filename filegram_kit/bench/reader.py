"""The shared reader: every memory method's context is answered by the same reader, so memory design
is the only variable (paper §4.3).

Multiple choice: the backend's `answer_mcq` task gets the question, the options (in an order drawn per
item, `presentation_order`) and the context text, nothing else (offline: the lexical reader scores each
option against the context; with an API backend: the model answers); options the reader's scores tie at
the top share the credit (`_credit`). Free-form Profile Reconstruction: `answer_open` writes the
assessment from the context, then the `judge_attribute` task scores 1-5 whether it asserts the
reference *value* of the item's attribute (metadata "attribute" and "tier"; offline: which tier's
cue phrases the answer asserts, so restating the attribute asserts nothing and a neighbouring value
earns partial credit), rescaled to 0-100 as in paper Table 3. Free-form items without an attribute
fall back to `judge_likert` (offline: coverage/contradiction rubric). Visual Grounding items (metadata
"future": the session's second half) are scored by the rubric judge of visual_judge.py, for every backend:
its 0-100 score is kept as is (not rounded to a Likert step), and its Likert is read off it.
A reply that does not parse is an error of category "parse" and scores 0, never a silent guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..llm.tasks import LETTERS, LikertScore, ParseError
from ..memory.base import Context
from ..traces.schema import ATTRIBUTES, Tier
from ..util.float_ties import top_indices
from ..util.seeds import stable_seed
from .schema import Item
from .visual_judge import judge_prediction

if TYPE_CHECKING:
    from ..llm.base import Backend

OPEN_ANSWER_WORDS = 60
RAW_REPLY_CHARS = 4000  # a parse error row keeps this much of the reply that failed
PROFILE_RUBRIC = {5: "names the same value for this attribute, with consistent detail",
                  4: "the same value, vaguely or with a minor inaccuracy",
                  3: "a neighbouring value, or hedges between two",
                  2: "mostly a different value", 1: "the opposite value, or nothing about the attribute"}


@dataclass(frozen=True)
class Answer:
    question_id: str
    answer: str  # the chosen letter, or the free-form text
    score: float  # 1/0 for multiple choice (1/m when the reader's scores tie the key with m - 1 others at the top);
    # the rescaled Likert score (0-100) for free-form (Visual Grounding: the rubric's 0-100)
    confidence: float = 0.0
    likert: int | None = None
    rationale: str = ""
    error: str | None = None  # None | "parse"

    @property
    def is_correct(self) -> bool:
        return self.score >= 1.0 if self.likert is None else self.likert >= 4


def likert_to_100(score: int) -> float:
    """1..5 -> 0..100 (paper Table 3's rescaling of the judge's Likert scores)."""
    return (score - 1) * 25.0


def answer(item: Item, context: Context, *, backend: Backend) -> Answer:
    """The reader's answer to one item from the context text alone, scored against the item's truth."""
    try:
        if item.is_mcq:
            order = presentation_order(item)
            with backend.phase("query"):
                mcq = backend.answer_mcq(item.question, [item.choices[k] for k in order], context.text)
            letter = LETTERS[order[mcq.index]]
            return Answer(item.question_id, letter, _credit(mcq, order, item), mcq.confidence)
        with backend.phase("query"):
            text = backend.answer_open(item.question, context.text, max_words=OPEN_ANSWER_WORDS)
        future = (item.metadata or {}).get("future")
        if future is not None:
            rubric = judge_prediction(text, future)
            return Answer(item.question_id, text, rubric.score, likert=rubric.likert, rationale=(
                f"operations {rubric.operations:.2f}, targets {rubric.targets:.2f}, naming {rubric.naming:.2f}"))
        with backend.phase("judge"):
            judged = judge_open(item, text, backend=backend)
        return Answer(item.question_id, text, likert_to_100(judged.score), likert=judged.score,
                      rationale=judged.rationale)
    except ParseError as exc:  # the reason and the model's whole reply (up to RAW_REPLY_CHARS) stay in the row
        return Answer(item.question_id, "", 0.0, error="parse",
                      rationale=f"{exc.task}: {exc.reason}; reply: {exc.reply}"[:RAW_REPLY_CHARS])


def _credit(mcq: Any, order: list[int], item: Item) -> float:
    """1 for the key, 0 otherwise; when the backend's scores tie the key with other options at the top (a reader
    with no evidence between them), the expected score of picking among them at random, 1 / (options tied):
    a reader that learnt nothing scores chance exactly, not chance plus the luck of one draw."""
    key = order.index(item.answer_index) if item.answer_index is not None else -1
    scores = list(mcq.scores or ())
    if len(scores) != len(order):
        return float(mcq.index == key)
    if mcq.index not in top_options(scores):  # a backend that chose against its own scores is scored on its choice
        return float(mcq.index == key)
    return tie_credit(scores, key)


def top_options(scores: list[float]) -> list[int]:
    """The options whose score is the highest (several when the evidence ties them; scores within
    float_ties.TOLERANCE tie, so a tie is one on every machine)."""
    return top_indices(scores)


def tie_credit(scores: list[float], key: int | None) -> float:
    """The expected score of guessing among the top-scored options: 1 / (options tied) if the key is one of
    them, else 0 (the shared reader and observer_traces are scored alike)."""
    tied = top_options(scores)
    return 1.0 / len(tied) if key in tied else 0.0


def presentation_order(item: Item) -> list[int]:
    """The order the reader is shown the options in: a permutation seeded by the item's id alone.

    A reader breaks ties (an offline reader with no evidence) or leans (an LLM's position bias) towards some
    position; shown in an order drawn per item, that lean lands on each original position equally often,
    so a reader that learnt nothing from the context scores chance in every sub-task, whatever the key's letter."""
    seed = stable_seed(f"presentation|{item.question_id}")
    return [int(k) for k in np.random.default_rng(seed).permutation(len(item.choices))]


def reference_value(item: Item) -> tuple[str, str] | None:
    """(attribute, reference value text) of a Profile Reconstruction item, None when it names no attribute.

    The value is the attribute's Table 8 word for the item's tier; without a tier, the `correct` field
    ("<label>: <value>") is read instead."""
    attribute = (item.metadata or {}).get("attribute")
    if attribute not in ATTRIBUTES or not ATTRIBUTES[attribute].tiers:
        return None
    tier = item.metadata.get("tier")
    if tier:
        return attribute, ATTRIBUTES[attribute].tiers[Tier.parse(tier)]
    return attribute, item.correct.split(":", 1)[-1].strip()


def judge_open(item: Item, text: str, *, backend: Backend) -> LikertScore:
    """The 1-5 judgement of a free-form answer: the attribute-value judge, else the generic Likert rubric."""
    target = reference_value(item)
    if target is None:
        return backend.judge_likert(item.correct, text, PROFILE_RUBRIC)
    return backend.judge_attribute(item.question, target[0], target[1], text)
