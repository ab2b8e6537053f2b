"""Offline algorithms for the memory baselines' typed tasks (llm/memory_tasks.py), one function per task.

- `session_summary`: a 200-400-word account of one session: its observations (observe.py), then the
  most central sentences of what it wrote (TextRank), within the budget; shorter when there is less.
- `decide_updates` (mem0's update step): each new fact against its neighbours by content-term
  overlap: the same statement again is NONE; the same statement with other values (numbers, file
  types, counts) supersedes the old one, UPDATE; a negated restatement is DELETE; else ADD.
- `extract_triples` (zep): one (user, VERB, object) event triple per action, plus state triples
  (file LOCATED_IN folder) that a later move, rename or delete contradicts.
- `contradicted` (zep's edge resolution): state facts with the same subject and relation and another object.
- `boundary` (evermemos): a focus shift between the open cell and the next actions.
- `synthesize` (simplemem): greedy merging of overlapping entries, pruning, keeping the most confident.
- `categorize` (memu): each item to the category whose name shares most stems with it, then a summary.
"""

from __future__ import annotations

import functools
import re

from filegram_kit.llm.algorithms.observe import naming_style, observe, parse_actions
from filegram_kit.llm.algorithms.summarize import summarize, truncate_words
from filegram_kit.llm.algorithms.text import content_terms, jaccard, numbers, stem, word_count

SAME_FACT = 0.9  # content-term Jaccard (numbers included) at or above which a fact is already known
SAME_SUBJECT = 0.6  # Jaccard of the terms without numbers at or above which a fact restates a memory
NEGATION = re.compile(r"\b(?:no longer|not|never|stopped|none)\b", re.IGNORECASE)
BOUNDARY_CONFIDENCE = 0.6
MERGE_OVERLAP = 0.5


def session_summary(text: str, *, min_words: int = 200, max_words: int = 400) -> str:
    """Observations of the session's actions, then what it wrote, at most max_words words."""
    items = re.split(r"\n(?=\[\+[\d.]+s\] )", text)
    facts = [o.text for o in observe(items, max_facts=0)]
    head = " ".join(facts)
    used = word_count(head)
    written = "\n".join(m for m in re.findall(r"--- (?:content|diff) ---\n(.*?)\n--- end ---", text, re.DOTALL))
    budget = max_words - used
    if written.strip() and budget >= 20:
        head += " What they wrote, in brief: " + summarize(written, max_words=max(budget - 6, min_words - used, 20))
    return truncate_words(head.strip(), max_words)


@functools.lru_cache(maxsize=65_536)  # memories are compared with every new fact
def _full_terms(text: str) -> frozenset[str]:
    return frozenset(content_terms(text))


@functools.lru_cache(maxsize=65_536)
def _bare_terms(text: str) -> frozenset[str]:
    """The content terms without the numbers (what a fact is about, whatever figure it states)."""
    return _full_terms(text) - {stem(n) for n in numbers(text)} - set(numbers(text))


def _closest(fact: str, memories: list[dict]) -> tuple[float, float, int] | None:
    """(subject overlap, fact overlap, index) of the memory sharing most terms with `fact` (numbers aside), ties
    broken by the overlap with numbers, then the earliest; the second overlap is only computed for the tied."""
    if not memories:
        return None
    bare = _bare_terms(fact)
    subject = [jaccard(bare, _bare_terms(m["text"])) for m in memories]
    top = max(subject)
    full = _full_terms(fact)
    tied = {k: jaccard(full, _full_terms(memories[k]["text"])) for k, s in enumerate(subject) if s == top}
    k = max(tied, key=lambda k: (tied[k], -k))
    return top, tied[k], k


def decide_updates(facts: list[str], existing: list[dict]) -> list[dict]:
    """mem0's events for new facts against existing memories [{id, text}]: ADD (new id), UPDATE, DELETE, NONE."""
    memories = [{"id": str(m["id"]), "text": str(m["text"])} for m in existing]
    next_id = max((int(m["id"]) for m in memories if m["id"].isdigit()), default=-1) + 1
    events = []
    for fact in facts:
        best = _closest(fact, memories)
        negates = best is not None and bool(NEGATION.search(fact)) and not NEGATION.search(memories[best[2]]["text"])
        if best and best[1] >= SAME_FACT:
            events.append({"id": memories[best[2]]["id"], "text": memories[best[2]]["text"], "event": "NONE"})
        elif best and best[0] >= SAME_SUBJECT and negates:
            events.append({"id": memories[best[2]]["id"], "text": memories[best[2]]["text"], "event": "DELETE"})
            memories.pop(best[2])
        elif best and best[0] >= SAME_SUBJECT:
            old = memories[best[2]]
            events.append({"id": old["id"], "text": fact, "event": "UPDATE", "old_memory": old["text"]})
            memories[best[2]] = {"id": old["id"], "text": fact}
        else:
            events.append({"id": str(next_id), "text": fact, "event": "ADD"})
            memories.append({"id": str(next_id), "text": fact})
            next_id += 1
    return events


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] + "/" if "/" in path else "./"


_ARROWS = {"move": "MOVED_TO", "rename": "RENAMED_TO", "copy": "COPIED_TO", "reference": "REFERENCED",
           "switch": "SWITCHED_TO"}
_WRITES = {"create": "CREATED", "overwrite": "OVERWROTE", "append": "APPENDED_TO"}
_VERBS = {"read": "READ", "browse": "LISTED", "search": "SEARCHED", "edit": "EDITED", "mkdir": "CREATED_FOLDER",
          "delete": "DELETED"}


def extract_triples(items: list[str], *, max_triples: int = 20) -> list[dict]:
    """Event triples (user -VERB-> file) with the action's details as the pattern, and state triples
    (file -LOCATED_IN-> folder) for created, moved, renamed and deleted files; at most max_triples."""
    out: list[dict] = []
    for a in parse_actions(items):
        pattern = ", ".join(a.details)
        if " -> " in a.target:  # move, rename, copy, reference, switch: file -> file
            old, new = (p.strip() for p in a.target.split(" -> ", 1))
            out.append({"subject": old, "relation": _ARROWS.get(a.verb, a.verb.upper()), "object": new,
                        "pattern": pattern, "kind": "event", "sources": [a.index]})
            if a.verb in ("move", "rename"):
                out.append({"subject": new.rsplit("/", 1)[-1], "relation": "LOCATED_IN", "object": _folder(new),
                            "pattern": naming_style(new), "kind": "state", "sources": [a.index]})
            continue
        relation = _WRITES.get(a.op, "WROTE") if a.verb == "write" else _VERBS.get(a.verb, a.verb.upper())
        out.append({"subject": "user", "relation": relation, "object": a.target, "pattern": pattern, "kind": "event",
                    "sources": [a.index]})
        if a.verb == "write" and a.op == "create" or a.verb == "delete":
            where = _folder(a.target) if a.verb == "write" else "(deleted)"
            out.append({"subject": a.target.rsplit("/", 1)[-1], "relation": "LOCATED_IN", "object": where,
                        "pattern": naming_style(a.target), "kind": "state", "sources": [a.index]})
    return out[:max_triples]


def contradicted(fact: dict, existing: list[dict]) -> list[int]:
    """Indices of existing facts a new state fact contradicts: same subject and relation, another object."""
    if fact.get("kind") != "state":
        return []
    return [k for k, e in enumerate(existing) if e.get("kind") == "state" and e.get("subject") == fact.get("subject")
            and e.get("relation") == fact.get("relation") and e.get("object") != fact.get("object")]


def _focus(items: list[str]) -> tuple[set[str], str]:
    acts = parse_actions(items)
    folders = {_folder(a.target.split(" -> ")[-1]) for a in acts if a.verb != "search"}
    kinds = [("reading" if a.verb in ("read", "browse", "search") else "writing" if a.verb in ("write", "edit")
              else "organizing") for a in acts]
    return folders, max(set(kinds), key=lambda k: (kinds.count(k), k)) if kinds else ""


def boundary(current: list[str], new: list[str]) -> dict:
    """Should the open cell end before the new actions? Confidence: half an activity change (reading,
    writing, organizing), half how little the folders they touch overlap."""
    if not current or not new:
        return {"should_end": False, "confidence": 0.0}
    (a_folders, a_kind), (b_folders, b_kind) = _focus(current), _focus(new)
    overlap = jaccard(a_folders, b_folders) if a_folders or b_folders else 1.0
    confidence = round(0.5 * (a_kind != b_kind) + 0.5 * (1.0 - overlap), 3)
    return {"should_end": confidence >= BOUNDARY_CONFIDENCE, "confidence": confidence}


def synthesize(entries: list[dict], *, min_keep: int = 15, max_keep: int = 40) -> list[dict]:
    """Entries [{lossless_restatement, confidence}] merged where their terms overlap > MERGE_OVERLAP (the
    more confident text kept, +0.05 per merged entry), below 0.2 dropped, the max_keep most confident kept
    (at least min_keep when there are that many), in input order."""
    groups: list[dict] = []
    for k, entry in enumerate(entries):
        terms = set(content_terms(entry["lossless_restatement"]))
        twin = next((g for g in groups if len(terms & g["terms"]) / max(1, min(len(terms), len(g["terms"])))
                     > MERGE_OVERLAP), None)
        if twin is None:
            groups.append({"terms": terms, "best": entry, "merged": [k], "confidence": float(entry["confidence"])})
            continue
        twin["merged"].append(k)
        if float(entry["confidence"]) > float(twin["best"]["confidence"]):
            twin["best"] = entry
        twin["confidence"] = min(1.0, max(twin["confidence"], float(entry["confidence"])) + 0.05)
    kept = [g for g in groups if g["confidence"] >= 0.2] or groups[:min_keep]
    ranked = sorted(range(len(kept)), key=lambda k: (-kept[k]["confidence"], k))[:max(max_keep, 1)]
    return [{"lossless_restatement": kept[k]["best"]["lossless_restatement"],
             "confidence": round(kept[k]["confidence"], 3), "merged": kept[k]["merged"]} for k in sorted(ranked)]


def _stems(text: str) -> set[str]:
    return {stem(w)[:5] for w in re.split(r"[\W_]+", text.lower()) if len(w) > 2}


def categorize(items: list[dict], categories: list[str]) -> list[dict]:
    """[{name, summary, confidence, items}] per category that got items: each item goes to the category whose
    name shares most word stems with its type (counted twice) and content (ties: the earlier category)."""
    if not categories:
        return []
    names = [_stems(c) for c in categories]
    members: dict[int, list[int]] = {}
    for k, item in enumerate(items):
        kind, words = _stems(str(item.get("type", ""))), _stems(str(item.get("content", "")))
        scores = [2 * len(kind & n) + len(words & n) for n in names]  # the item's type counts double
        members.setdefault(max(range(len(categories)), key=lambda c: (scores[c], -c)), []).append(k)
    return [{"name": categories[c], "items": ks, "confidence": round(min(0.95, 0.4 + 0.05 * len(ks)), 2),
             "summary": summarize(" ".join(items[k]["content"] for k in ks), max_words=80)}
            for c, ks in sorted(members.items())]
