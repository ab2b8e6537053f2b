"""The memory baselines' typed tasks: prompts, reply parsing, the offline algorithms, and call metering."""

from __future__ import annotations

import json

import pytest

from filegram_kit.llm import get_backend
from filegram_kit.llm.algorithms.memory_ops import boundary, categorize, contradicted, extract_triples, synthesize
from filegram_kit.llm.algorithms.observe import closest_label, naming_style, observe
from filegram_kit.llm.memory_tasks import MEMORY_TASKS, decode, prompt_fields
from filegram_kit.llm.tasks import TASKS, ParseError

ACTIONS = ["[+0.0s] browse . (depth 0, 6 entries)",
           "[+1.0s] read notes/a.md (md, depth 1, lines 1-20, 400 chars, view 1)",
           "[+2.0s] read notes/a.md (md, depth 1, lines 1-20, 400 chars, view 2)",
           "[+3.0s] search grep \"budget\" (2 matches, opened notes/b.md)",
           "[+9.0s] write create out/2024-05-03_report.md (md, depth 1, 120 chars)\n--- content ---\n"
           "# Report\nThe finance team approved 42,000 EUR on 2024-05-03.\n--- end ---",
           "[+12.0s] edit out/2024-05-03_report.md (+2 -1 lines, 0 modified, edit)",
           "[+15.0s] move out/2024-05-03_report.md -> final/2024-05-03_report.md (depth 1)"]
INPUTS = {"summarize_session": {"text": "\n".join(ACTIONS)}, "extract_user_facts": {"messages": ACTIONS},
          "update_memory": {"facts": ["A"], "existing": [{"id": "0", "text": "B"}]},
          "extract_triples": {"items": ACTIONS},
          "find_contradictions": {"fact": {"subject": "a", "relation": "R", "object": "b", "kind": "state"},
                                  "existing": [{"subject": "a", "relation": "R", "object": "c", "kind": "state"}]},
          "extract_memory_cells": {"items": ACTIONS}, "extract_entries": {"items": ACTIONS, "previous": ["x"]},
          "synthesize_entries": {"entries": [{"lossless_restatement": "x", "confidence": 0.5}]},
          "detect_boundary": {"current": ACTIONS[:3], "new": ACTIONS[3:]},
          "extract_traits": {"items": ACTIONS, "dimensions": ["naming", "versioning"]},
          "extract_items": {"items": ACTIONS, "types": ["reading_habit", "organization"]},
          "categorize_items": {"items": [{"type": "t", "content": "c"}], "categories": ["reading_behavior"]}}
PARAMS = {"summarize_session": {"min_words": 200, "max_words": 400}, "extract_triples": {"min_triples": 10,
          "max_triples": 20}, "extract_memory_cells": {"min_cells": 8, "max_cells": 15},
          "extract_entries": {"min_entries": 5, "max_entries": 12},
          "synthesize_entries": {"min_keep": 15, "max_keep": 40}, "extract_items": {"min_items": 5, "max_items": 15}}


@pytest.mark.parametrize("task", sorted(MEMORY_TASKS))
def test_every_memory_task_is_registered_and_renders_its_inputs(task):
    assert TASKS[task] is MEMORY_TASKS[task]
    prompt = TASKS[task].render(**prompt_fields(task, INPUTS[task], PARAMS.get(task, {})))
    assert "{" not in prompt.replace("{{", "").split("Shape:")[0] or task == "summarize_session"
    if "items" in INPUTS[task] and task != "categorize_items":
        assert "[0] [+0.0s] browse" in prompt and "[6] " in prompt  # numbered so records can cite them


@pytest.mark.parametrize("task", ["extract_triples", "extract_memory_cells", "extract_entries", "extract_items",
                                  "extract_traits", "categorize_items", "update_memory", "synthesize_entries"])
def test_record_replies_parse_tolerantly_and_wrong_shapes_are_errors(task):
    good = {"extract_triples": {"triples": [{"subject": "u", "relation": "READ", "object": "a", "sources": [1, 99]}]},
            "extract_memory_cells": {"cells": [{"type": "fact", "content": "c", "confidence": "high"}]},
            "extract_entries": {"entries": [{"lossless_restatement": "r", "confidence": 1.7}]},
            "extract_items": {"items": [{"type": "t", "content": "c"}]},
            "extract_traits": {"traits": [{"dimension": "naming", "pattern": "dated names"}]},
            "categorize_items": {"categories": [{"name": "reading_behavior", "items": [0, 5]}]},
            "update_memory": {"memory": [{"id": "0", "text": "t", "event": "UPDATE"}]},
            "synthesize_entries": {"entries": [{"lossless_restatement": "r", "merged": [0]}]}}[task]
    value = decode(task, "Here you go:\n```json\n" + json.dumps(good) + "\n```", INPUTS[task])
    assert len(value) == 1
    record = value[0]
    if "sources" in record:
        assert record["sources"] == [1]  # out-of-range citations dropped
    if "confidence" in record:
        assert 0.0 <= record["confidence"] <= 1.0
    if task == "categorize_items":
        assert record["items"] == [0]
    with pytest.raises(ParseError):
        decode(task, "no JSON at all", INPUTS[task])
    with pytest.raises(ParseError):
        decode(task, json.dumps({next(iter(good)): [{"unrelated": 1}]}), INPUTS[task])


def test_update_events_must_be_known_and_boundaries_and_contradictions_parse():
    with pytest.raises(ParseError, match="event"):
        decode("update_memory", '{"memory": [{"id": "0", "event": "MERGE"}]}', INPUTS["update_memory"])
    assert decode("detect_boundary", '{"should_end": "true", "confidence": 0.8}', {}) == {"should_end": True,
                                                                                          "confidence": 0.8}
    assert decode("find_contradictions", '{"contradicted": [0, 3]}', INPUTS["find_contradictions"]) == [0]
    assert decode("extract_user_facts", '{"facts": ["a", {"fact": "b"}]}', {}) == ["a", "b"]


# -- offline algorithms ------------------------------------------------------------------------------------------
def test_observations_count_what_the_actions_show_and_cite_them():
    found = observe(ACTIONS)

    def said(topic: str, words: str):
        return next(o for o in found if o.topic == topic and words in o.text)

    reading = said("reading", "read 1 file (1 md) in 2 reads; 1 was a re-read")
    assert reading.sources == (1, 2) and reading.confidence == 0.7
    assert said("searching", "searched 1 time (grep 1) and opened files from 1").sources == (3,)
    assert said("searching", "listed directories 1 time").sources == (0,)
    assert said("writing", "created 1 file (1 md) of about 120 characters").sources == (4,)
    assert said("editing", "small edits of about 3 changed lines")
    assert said("naming", "dated (1)") and said("organizing", "moved 1 file")
    assert said("content", "42,000").sources == (4,) and said("workflow", "4 reading or search actions")
    assert observe(["not an action", "user: hello"]) == []


def test_labels_naming_styles_and_triples():
    reading = next(o for o in observe(ACTIONS) if o.topic == "reading")
    assert closest_label(reading, ["production", "consumption"]) == "consumption"
    assert closest_label(reading, ["weather"]) is None
    assert [naming_style(n) for n in ("2024-05-03_a.md", "report_v2.md", "a_b.md", "a-b.md", "aB.md", "a.md")] == \
        ["dated", "versioned", "snake_case", "kebab-case", "camelCase", "plain"]
    triples = extract_triples(ACTIONS)
    located = [t for t in triples if t["relation"] == "LOCATED_IN"]
    assert [(t["object"], t["sources"]) for t in located] == [("out/", [4]), ("final/", [6])]
    assert contradicted(located[1], located) == [0] and contradicted(triples[0], triples) == []


def test_boundary_synthesis_and_categories():
    reads = [f"[+{i}.0s] read notes/{i}.md (md, depth 1)" for i in range(5)]
    writes = [f"[+{i}.0s] write create out/{i}.md (md, depth 1, 9 chars)" for i in range(5)]
    assert boundary(reads, writes) == {"should_end": True, "confidence": 1.0}
    assert boundary(reads, reads)["should_end"] is False
    entries = [{"lossless_restatement": "The user reads notes files twice", "confidence": 0.5},
               {"lossless_restatement": "The user reads notes files twice daily", "confidence": 0.9},
               {"lossless_restatement": "Folders are named by date", "confidence": 0.1}]
    merged = synthesize(entries, min_keep=1, max_keep=5)
    assert [(e["lossless_restatement"], e["merged"]) for e in merged] == [(entries[1]["lossless_restatement"],
                                                                           [0, 1])]
    cats = categorize([{"type": "reading_habit", "content": "x"}, {"type": "organization", "content": "y"}],
                      ["reading_behavior", "organization_habits"])
    assert [(c["name"], c["items"]) for c in cats] == [("reading_behavior", [0]), ("organization_habits", [1])]


# -- metering -----------------------------------------------------------------------------------------------------
def test_metered_counts_calls_in_map_workers_and_estimates_their_tokens():
    backend = get_backend("offline", max_concurrency=2)
    with backend.metered() as outer:
        with backend.metered() as inner:
            backend.map(lambda t: backend.summarize(t, max_words=5), ["one two three four", "five six seven"])
        backend.embed(["a b c d"])
    assert inner.calls == 2 and outer.calls == 3 and outer.est_input_tokens > inner.est_input_tokens > 0
    assert outer.input_tokens == 0 and backend.usage.total("input_tokens") == 0  # offline bills nothing
    with backend.metered() as replayed:
        backend.replay(inner.as_dict())
    assert replayed.as_dict() == inner.as_dict()
