"""How many tokens a model may generate for each typed task: every prompting backend sends this cap.

An uncapped call lets a small model run until its context window is full (a 135M model once generated 7,915
tokens, 150 s, for one memory extraction). Each cap is fit for what its task asks: a JSON letter for an MCQ,
about two tokens per word for the words a task allows, a fixed allowance per record for the extraction tasks,
scaled by the number of records the call asks for. A reply cut at its cap that still parses is used; one that
does not parse is a parse error that says it was cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TOKENS_PER_WORD = 2  # English runs about 1.3 tokens a word, Chinese about one a character: room for either
WORDS_SLACK = 48  # a JSON wrapper or a short lead-in around the words
RECORD_TOKENS = 96  # one extracted record (a fact, a triple, a memory cell) with its fields and sources
RECORDS_SLACK = 64
DEFAULT_CAP = 512

FIXED: dict[str, int] = {
    "answer_mcq": 64,  # {"answer": "B", "confidence": 0.8}
    "judge_likert": 192, "judge_attribute": 192, "judge_anomaly": 192,  # a score or label and one sentence
    "describe_style": 256,
    "rephrase_question": 256,
    "segment_episodes": 128,  # a handful of boundary indices
    "narrate_episode": 512,  # a title, 3-8 sentences and a summary
    "detect_boundary": 64,
    "find_contradictions": 128,
    "extract_user_facts": 1024,
    "update_memory": 1024,
    "extract_traits": 768,  # six behavioural dimensions, a pattern and evidence each
    "categorize_items": 768,
    "agent_step": 1024,  # one tool call with the content it writes
}
WORDS = {"answer_open": "max_words", "summarize": "max_words", "summarize_session": "max_words"}
RECORDS = {"extract_facts": "max_facts", "extract_triples": "max_triples", "extract_memory_cells": "max_cells",
           "extract_entries": "max_entries", "synthesize_entries": "max_keep", "extract_items": "max_items"}


def output_cap(task: str, params: Mapping[str, Any]) -> int:
    """The most tokens one reply to `task` may have, given the call's params (max_words, max_facts ...)."""
    if task in WORDS and params.get(WORDS[task]):
        return TOKENS_PER_WORD * int(params[WORDS[task]]) + WORDS_SLACK
    if task in RECORDS and params.get(RECORDS[task]):
        return RECORD_TOKENS * int(params[RECORDS[task]]) + RECORDS_SLACK
    return FIXED.get(task, DEFAULT_CAP)
