"""The typed tasks of the memory baselines (memory/eager_summary.py ... memory/memu.py): prompt, reply shape,
parser, typed method and offline algorithm for each, in one place.

Extraction tasks take the window's actions as a list (one serialised action per item, memory/serialize.py);
the prompt numbers them [0], [1], ... and every record a model returns may cite the numbers it came from in
`sources`, so each stored memory item keeps the ids of its source events (the KnowAct attribution needs
them). A record without sources is credited to the whole window.

    facts = backend.extract_user_facts(messages)              # mem0: facts of a 20-message batch
    events = backend.update_memory(facts, [{"id": "0", "text": "..."}])   # ADD / UPDATE / DELETE / NONE
"""

from __future__ import annotations

import functools
from typing import Any

from .tasks import JSON_ONLY, TASKS, ParseError, TaskSpec, parse_json

_NUMBERED = "Each action is numbered [i]; cite the numbers each record comes from in \"sources\"."
_USER = "ACTIONS lists the file-system actions of one user, in order, with the content they wrote.\n"
MEMORY_TASKS: dict[str, TaskSpec] = {spec.name: spec for spec in (
    TaskSpec("summarize_session", "text",
             "SESSION is one work session of a user: their file-system actions in order, with the content they wrote. "
             "Summarize in {min_words}-{max_words} words what the user did and how they work: how they read and "
             "search, what and how they write, how they organise and name files and folders, how they edit and "
             "keep versions. Keep file names and numbers exactly.\n\nSESSION:\n{text}\n\nSUMMARY:"),
    TaskSpec("extract_user_facts", "json",
             "You are a personal information organiser. MESSAGES lists one user's file-system actions as chat "
             "messages, in order, with the content they wrote.\nExtract the facts about this user's habits, "
             "preferences and way of working that a memory should keep, each one short sentence. " + JSON_ONLY +
             ' Shape: {{"facts": ["..."]}}\n\nMESSAGES:\n{messages}'),
    TaskSpec("update_memory", "json",
             "You manage a memory. For each new fact decide against the existing memories: ADD it as a new memory, "
             "UPDATE an existing memory it restates with other details (keep its id, give the new text), DELETE a "
             "memory it contradicts, or NONE when the memory already holds it. " + JSON_ONLY + ' Shape: {{"memory": '
             '[{{"id": "...", "text": "...", "event": "ADD|UPDATE|DELETE|NONE", "old_memory": "..."}}]}}\n\n'
             "EXISTING MEMORIES:\n{existing}\n\nNEW FACTS:\n{facts}"),
    TaskSpec("extract_triples", "json",
             _USER + "Extract {min_triples}-{max_triples} knowledge-graph triples about the user's behaviour and "
             "files (subject, relation in UPPER_SNAKE_CASE, object, the behavioural pattern shown, and kind: "
             '"state" when the subject can hold one such object at a time, e.g. where a file is, else "event"). '
             + _NUMBERED + " " + JSON_ONLY + ' Shape: {{"triples": [{{"subject": "...", "relation": "...", '
             '"object": "...", "pattern": "...", "kind": "state|event", "sources": [0]}}]}}\n\nACTIONS:\n{items}'),
    TaskSpec("find_contradictions", "json",
             "A new fact was added to a user's knowledge graph. Which existing facts does it contradict (both "
             "cannot hold at the same time)? " + JSON_ONLY + ' Shape: {{"contradicted": [indices]}}\n\n'
             "NEW FACT: {fact}\n\nEXISTING FACTS:\n{existing}"),
    TaskSpec("extract_memory_cells", "json",
             _USER + "Extract {min_cells}-{max_cells} memory cells, each a fact, a preference or a behavioral_pattern "
             "of the user, with your confidence (0-1). " + _NUMBERED + " " + JSON_ONLY + ' Shape: {{"cells": '
             '[{{"type": "fact|preference|behavioral_pattern", "content": "...", "confidence": 0.8, "sources": '
             "[0]}}]}}\n\nACTIONS:\n{items}"),
    TaskSpec("extract_entries", "json",
             _USER + "Write {min_entries}-{max_entries} self-contained memory entries (no pronouns, no relative "
             "references: each understandable alone), with keywords, a topic (reading, writing, editing, "
             "organizing, searching, cross-modal, workflow), entities and confidence (0-1). Do not repeat these "
             "earlier entries:\n{previous}\n" + _NUMBERED + " " + JSON_ONLY + ' Shape: {{"entries": '
             '[{{"lossless_restatement": "...", "keywords": ["..."], "topic": "...", "entities": ["..."], '
             '"confidence": 0.8, "sources": [0]}}]}}\n\nACTIONS:\n{items}'),
    TaskSpec("synthesize_entries", "json",
             "ENTRIES are memory entries about one user. Merge the ones that say the same thing, resolve conflicts, "
             "adjust confidence, drop entries under 0.2 and keep {min_keep}-{max_keep}. " + JSON_ONLY +
             ' Shape: {{"entries": [{{"lossless_restatement": "...", "confidence": 0.8, "merged": [indices]}}]}}'
             "\n\nENTRIES:\n{entries}"),
    TaskSpec("detect_boundary", "json",
             "A user's actions are being cut into coherent episodes. Does the episode so far end before the new "
             "actions (the topic or activity shifts)? " + JSON_ONLY + ' Shape: {{"should_end": true|false, '
             '"confidence": 0.0-1.0}}\n\nEPISODE SO FAR:\n{current}\n\nNEW ACTIONS:\n{new}'),
    TaskSpec("extract_traits", "json",
             _USER + "For each of these behavioural dimensions that the actions show, state the user's pattern and "
             "the evidence: {dimensions}. " + _NUMBERED + " " + JSON_ONLY + ' Shape: {{"traits": [{{"dimension": '
             '"...", "pattern": "...", "evidence": "...", "sources": [0]}}]}}\n\nACTIONS:\n{items}'),
    TaskSpec("extract_items", "json",
             _USER + "Extract {min_items}-{max_items} memory items about the user, typed as one of {types}, each with "
             "an importance (0-1). " + _NUMBERED + " " + JSON_ONLY + ' Shape: {{"items": [{{"type": "...", '
             '"content": "...", "importance": 0.5, "sources": [0]}}]}}\n\nACTIONS:\n{items}'),
    TaskSpec("categorize_items", "json",
             "Group these memory items about a user into the categories {categories}; for each category that gets "
             "items, write a summary and a confidence (0-1). " + JSON_ONLY + ' Shape: {{"categories": [{{"name": '
             '"...", "summary": "...", "confidence": 0.8, "items": [indices]}}]}}\n\nITEMS:\n{items}'),
)}

TASKS.update(MEMORY_TASKS)  # registered beside the core tasks (the package's __init__ imports this module)

# task -> (key of the list in the reply, required text fields, numeric fields with their default)
RECORDS: dict[str, tuple[str, tuple[str, ...], dict[str, float]]] = {
    "update_memory": ("memory", ("id", "event"), {}),
    "extract_triples": ("triples", ("subject", "relation", "object"), {}),
    "extract_memory_cells": ("cells", ("type", "content"), {"confidence": 0.5}),
    "extract_entries": ("entries", ("lossless_restatement",), {"confidence": 0.5}),
    "synthesize_entries": ("entries", ("lossless_restatement",), {"confidence": 0.5}),
    "extract_traits": ("traits", ("dimension", "pattern"), {}),
    "extract_items": ("items", ("type", "content"), {"importance": 0.5}),
    "categorize_items": ("categories", ("name",), {"confidence": 0.5}),
}
EVENTS = ("ADD", "UPDATE", "DELETE", "NONE")


def _numbered(items: list[str]) -> str:
    return "\n".join(f"[{i}] {item}" for i, item in enumerate(items))


def _lines(values: list[Any]) -> str:
    return "\n".join(f"{i}. {v if isinstance(v, str) else _record_text(v)}" for i, v in enumerate(values)) or "(none)"


def _record_text(record: dict) -> str:
    return "; ".join(f"{k}: {v}" for k, v in record.items() if k not in ("sources", "merged"))


def prompt_fields(task: str, inputs: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """What a memory task's template is filled with."""
    fields = {**inputs, **params}
    if "items" in inputs and task != "categorize_items":
        fields["items"] = _numbered(inputs["items"])
    for key in ("messages", "facts", "previous", "entries", "current", "new", "existing"):
        if key in inputs:
            fields[key] = _numbered(inputs[key]) if key == "messages" else _lines(inputs[key])
    if task == "update_memory":
        fields["existing"] = "\n".join(f"id {m['id']}: {m['text']}" for m in inputs["existing"]) or "(none)"
    if task == "categorize_items":
        fields["items"], fields["categories"] = _lines(inputs["items"]), ", ".join(inputs["categories"])
    if task == "find_contradictions":
        fields["fact"] = _record_text(inputs["fact"])
    for key in ("dimensions", "types"):
        if isinstance(fields.get(key), list):
            fields[key] = ", ".join(fields[key])
    return fields


def _records(task: str, text: str, n_items: int | None) -> list[dict]:
    key, required, numeric = RECORDS[task]
    data = parse_json(task, text)
    rows = data.get(key) if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise ParseError(task, f"expected a list under {key!r}", text)
    out = []
    for row in rows:
        if not isinstance(row, dict) or not all(str(row.get(f, "")).strip() for f in required):
            raise ParseError(task, f"every record needs {', '.join(required)}", text)
        record = {k: v for k, v in row.items()}
        for field, default in numeric.items():
            try:
                record[field] = min(1.0, max(0.0, float(row.get(field, default))))
            except (TypeError, ValueError):
                record[field] = default
        for list_key in ("sources", "merged", "items"):
            if list_key in record:
                values = record[list_key] if isinstance(record[list_key], list) else []
                record[list_key] = [int(v) for v in values if isinstance(v, int | float) and
                                    (n_items is None or 0 <= int(v) < n_items)]
        out.append(record)
    if task == "update_memory" and any(str(r["event"]).upper() not in EVENTS for r in out):
        raise ParseError(task, f"event must be one of {EVENTS}", text)
    return out


def decode(task: str, text: str, inputs: dict[str, Any]) -> Any:
    """The JSON-able value a memory task's reply stands for; ParseError when it has the wrong shape."""
    if task == "summarize_session":
        return text.strip()
    if task == "extract_user_facts":
        data = parse_json(task, text)
        facts = data.get("facts") if isinstance(data, dict) else data
        if not isinstance(facts, list):
            raise ParseError(task, "expected a list under 'facts'", text)
        return [str(f.get("fact", "") if isinstance(f, dict) else f).strip() for f in facts if f]
    if task == "find_contradictions":
        data = parse_json(task, text)
        found = data.get("contradicted") if isinstance(data, dict) else data
        if not isinstance(found, list):
            raise ParseError(task, "expected a list under 'contradicted'", text)
        return sorted({int(i) for i in found if isinstance(i, int | float) and 0 <= int(i) < len(inputs["existing"])})
    if task == "detect_boundary":
        data = parse_json(task, text)
        if not isinstance(data, dict) or "should_end" not in data:
            raise ParseError(task, "expected 'should_end'", text)
        end = data["should_end"] if isinstance(data["should_end"], bool) else str(data["should_end"]).lower() == "true"
        return {"should_end": end, "confidence": float(data.get("confidence", 1.0 if end else 0.0))}
    size = len(inputs.get("items") or inputs.get("entries") or []) or None
    return _records(task, text, size)


class MemoryTaskMethods:
    """The typed methods of the memory tasks (mixed into `Backend`; `run` is the backend's)."""

    def run(self, task: str, inputs: dict[str, Any], params: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError

    def summarize_session(self, text: str, *, min_words: int = 200, max_words: int = 400) -> str:
        """One session in min_words-max_words words (Eager Summarization)."""
        return str(self.run("summarize_session", {"text": text}, {"min_words": min_words, "max_words": max_words}))

    def extract_user_facts(self, messages: list[str]) -> list[str]:
        """mem0's fact extraction over one batch of messages."""
        return [str(f) for f in self.run("extract_user_facts", {"messages": list(messages)}) if str(f).strip()]

    def update_memory(self, facts: list[str], existing: list[dict[str, str]]) -> list[dict[str, Any]]:
        """mem0's update decision: events (ADD/UPDATE/DELETE/NONE) for new facts against existing {id, text}."""
        existing = [{"id": str(m["id"]), "text": str(m["text"])} for m in existing]
        return [dict(e, event=str(e["event"]).upper()) for e in
                self.run("update_memory", {"facts": list(facts), "existing": existing})]

    def extract_triples(self, items: list[str], *, min_triples: int = 10, max_triples: int = 20) -> list[dict]:
        return list(self.run("extract_triples", {"items": list(items)},
                             {"min_triples": min_triples, "max_triples": max_triples}))

    def find_contradictions(self, fact: dict[str, Any], existing: list[dict[str, Any]]) -> list[int]:
        """Indices of the existing facts a new one contradicts (zep's edge invalidation)."""
        return [int(i) for i in self.run("find_contradictions", {"fact": dict(fact), "existing": list(existing)})]

    def extract_memory_cells(self, items: list[str], *, min_cells: int = 8, max_cells: int = 15) -> list[dict]:
        return list(self.run("extract_memory_cells", {"items": list(items)},
                             {"min_cells": min_cells, "max_cells": max_cells}))

    def extract_entries(self, items: list[str], previous: list[str], *, min_entries: int = 5,
                        max_entries: int = 12) -> list[dict]:
        return list(self.run("extract_entries", {"items": list(items), "previous": list(previous)},
                             {"min_entries": min_entries, "max_entries": max_entries}))

    def synthesize_entries(self, entries: list[dict], *, min_keep: int = 15, max_keep: int = 40) -> list[dict]:
        shown = [{"lossless_restatement": e["lossless_restatement"], "confidence": float(e["confidence"])}
                 for e in entries]
        return list(self.run("synthesize_entries", {"entries": shown}, {"min_keep": min_keep, "max_keep": max_keep}))

    def detect_boundary(self, current: list[str], new: list[str]) -> dict[str, Any]:
        value = self.run("detect_boundary", {"current": list(current), "new": list(new)})
        return {"should_end": bool(value["should_end"]), "confidence": float(value["confidence"])}

    def extract_traits(self, items: list[str], dimensions: list[str]) -> list[dict]:
        return list(self.run("extract_traits", {"items": list(items), "dimensions": list(dimensions)}))

    def extract_items(self, items: list[str], types: list[str], *, min_items: int = 5,
                      max_items: int = 15) -> list[dict]:
        return list(self.run("extract_items", {"items": list(items), "types": list(types)},
                             {"min_items": min_items, "max_items": max_items}))

    def categorize_items(self, items: list[dict], categories: list[str]) -> list[dict]:
        shown = [{"type": str(i["type"]), "content": str(i["content"])} for i in items]
        return list(self.run("categorize_items", {"items": shown, "categories": list(categories)}))


class OfflineMemoryTasks:
    """The offline backend's answers to the memory tasks (algorithms/observe.py and algorithms/memory_ops.py)."""

    def _task_summarize_session(self, text: str, min_words: int = 200, max_words: int = 400) -> str:
        from .algorithms.memory_ops import session_summary

        return session_summary(text, min_words=min_words, max_words=max_words)

    def _task_extract_user_facts(self, messages: list[str]) -> list[str]:
        return [o.text for o in _observe(messages)]

    def _task_update_memory(self, facts: list[str], existing: list[dict]) -> list[dict]:
        from .algorithms.memory_ops import decide_updates

        return decide_updates(facts, existing)

    def _task_extract_triples(self, items: list[str], min_triples: int = 10, max_triples: int = 20) -> list[dict]:
        from .algorithms.memory_ops import extract_triples

        return extract_triples(items, max_triples=max_triples)

    def _task_find_contradictions(self, fact: dict, existing: list[dict]) -> list[int]:
        from .algorithms.memory_ops import contradicted

        return contradicted(fact, existing)

    def _task_extract_memory_cells(self, items: list[str], min_cells: int = 8, max_cells: int = 15) -> list[dict]:
        kinds = {"content": "fact", "style": "preference"}
        return [{"type": kinds.get(o.topic, "behavioral_pattern"), "content": o.text, "confidence": o.confidence,
                 "sources": list(o.sources)} for o in _observe(items)[:max_cells]]

    def _task_extract_entries(self, items: list[str], previous: list[str], min_entries: int = 5,
                              max_entries: int = 12) -> list[dict]:
        seen = set(previous)
        topics = {"content": "writing", "style": "writing", "naming": "organizing"}
        return [{"lossless_restatement": o.text, "keywords": list(o.keywords), "topic": topics.get(o.topic, o.topic),
                 "entities": list(o.entities), "confidence": o.confidence, "sources": list(o.sources)}
                for o in _observe(items) if o.text not in seen][:max_entries]

    def _task_synthesize_entries(self, entries: list[dict], min_keep: int = 15, max_keep: int = 40) -> list[dict]:
        from .algorithms.memory_ops import synthesize

        return synthesize(entries, min_keep=min_keep, max_keep=max_keep)

    def _task_detect_boundary(self, current: list[str], new: list[str]) -> dict:
        from .algorithms.memory_ops import boundary

        return boundary(current, new)

    def _task_extract_traits(self, items: list[str], dimensions: list[str]) -> list[dict]:
        from .algorithms.observe import closest_label

        return [{"dimension": dimension, "pattern": o.text, "evidence": ", ".join(o.entities[:3]),
                 "sources": list(o.sources)} for o in _observe(items)
                if (dimension := closest_label(o, list(dimensions))) is not None]

    def _task_extract_items(self, items: list[str], types: list[str], min_items: int = 5,
                            max_items: int = 15) -> list[dict]:
        from .algorithms.observe import closest_label

        return [{"type": closest_label(o, list(types)) or (types[0] if types else o.topic), "content": o.text,
                 "importance": o.confidence, "sources": list(o.sources)} for o in _observe(items)[:max_items]]

    def _task_categorize_items(self, items: list[dict], categories: list[str]) -> list[dict]:
        from .algorithms.memory_ops import categorize

        return categorize(items, categories)


@functools.lru_cache(maxsize=16_384)  # a pure function of the window; benchmarks rebuild memories from the same ones
def _observed(items: tuple[str, ...]) -> tuple:
    from .algorithms.observe import observe

    return tuple(observe(list(items)))


def _observe(items: list[str]) -> list:
    return list(_observed(tuple(items)))
