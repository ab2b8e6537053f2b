"""Deterministic offline algorithms behind the typed LLM tasks (used by the `offline` backend).

Each task has a real method named as what it is, so offline results are meaningful baselines,
not stubs: WordLlama embeddings, the default (wordllama_embedder: a general-purpose static token-
embedding model trained on none of our text), LSA embeddings fitted on the project's own text, the
ablation (embedding; `embed` is LSA, `embed_with(name, ...)` picks either: embedders), TextRank
extractive summaries (summarize), informativeness-ranked fact extraction (facts), change-point
episode segmentation (segment), a BM25 + embedding + number-matching reader (reader), a coverage/
contradiction Likert judge (judge), a tier-cue attribute-value judge for Profile Reconstruction
(value_judge), a residual-z anomaly judge (anomaly), measured style description (style), rule-based
question paraphrase (rephrase) and count-based episode narration (narrate). All are pure functions
of their inputs: same input, same output bytes.
"""

from filegram_kit.llm.algorithms.anomaly import judge_anomaly
from filegram_kit.llm.algorithms.embedders import DEFAULT_EMBEDDER, EMBEDDERS, embed_with
from filegram_kit.llm.algorithms.embedding import LsaEmbedder, embed, reference_corpus
from filegram_kit.llm.algorithms.fact_extraction import extract_facts
from filegram_kit.llm.algorithms.judge import judge_likert
from filegram_kit.llm.algorithms.lexical_reader import answer_mcq, answer_open
from filegram_kit.llm.algorithms.narrate import narrate
from filegram_kit.llm.algorithms.rephrase import rephrase
from filegram_kit.llm.algorithms.segment import segment
from filegram_kit.llm.algorithms.style import describe_style
from filegram_kit.llm.algorithms.summarize import summarize
from filegram_kit.llm.algorithms.value_judge import judge_attribute
from filegram_kit.llm.algorithms.wordllama_embedder import WordLlamaEmbedder

__all__ = [
    "DEFAULT_EMBEDDER", "EMBEDDERS", "LsaEmbedder", "WordLlamaEmbedder", "answer_mcq", "answer_open", "describe_style",
    "embed", "embed_with", "extract_facts", "judge_anomaly", "judge_attribute", "judge_likert", "narrate",
    "reference_corpus", "rephrase", "segment", "summarize",
]
