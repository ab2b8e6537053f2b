"""Deterministic offline algorithms behind the typed LLM tasks (used by the `offline` backend).

Each task has a real method named as what it is, so offline results are meaningful baselines,
not stubs: LSA embeddings (embedding), TextRank extractive summaries (summarize), informativeness-
ranked fact extraction (facts), change-point episode segmentation (segment), a BM25 + LSA +
number-matching reader (reader), a coverage/contradiction Likert judge (judge), a residual-z
anomaly judge (anomaly), measured style description (style), rule-based question paraphrase
(rephrase) and count-based episode narration (narrate). All are pure functions of their inputs:
same input, same output bytes.
"""

from filegram_kit.llm.algorithms.anomaly import judge_anomaly
from filegram_kit.llm.algorithms.embedding import LsaEmbedder, embed, reference_corpus
from filegram_kit.llm.algorithms.facts import extract_facts
from filegram_kit.llm.algorithms.judge import judge_likert
from filegram_kit.llm.algorithms.narrate import narrate
from filegram_kit.llm.algorithms.reader import answer_mcq, answer_open
from filegram_kit.llm.algorithms.rephrase import rephrase
from filegram_kit.llm.algorithms.segment import segment
from filegram_kit.llm.algorithms.style import describe_style
from filegram_kit.llm.algorithms.summarize import summarize

__all__ = [
    "LsaEmbedder", "answer_mcq", "answer_open", "describe_style", "embed", "extract_facts", "judge_anomaly",
    "judge_likert", "narrate", "reference_corpus", "rephrase", "segment", "summarize",
]
