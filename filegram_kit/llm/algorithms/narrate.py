"""Episode narration from the episode's own action lines (what an LLM would be shown, nothing more).

Each line is "<verb> <object>[ (<detail>)]" as FileGramOS renders a timeline (verbs: read, browse,
search, create, overwrite, edit, mkdir, copy, move, rename, delete). The narrator counts the verbs,
finds the focus (the folder or file most of the actions touch) and writes:

- a title: the dominant activity (reading / writing / organising) and the focus;
- a third-person narrative of 3-8 sentences: how the episode began, one sentence per activity
  present with counts and up to three named objects, and how it ended;
- a one-sentence summary with the counts.

Lines that do not follow the format are kept as "other" actions and counted, never dropped.
"""

from __future__ import annotations

import re
from collections import Counter

READING = ("read", "browse", "search")
WRITING = ("create", "overwrite", "edit")
ORGANISING = ("mkdir", "copy", "move", "rename", "delete")
_ACTIVITY = {**dict.fromkeys(READING, "reading"), **dict.fromkeys(WRITING, "writing"),
             **dict.fromkeys(ORGANISING, "organising")}
_LINE = re.compile(r"^\s*(?P<verb>[a-z_]+)\s+(?P<object>.*?)(?:\s+\((?P<detail>[^()]*)\))?\s*$")
_PAST = {"read": "read", "browse": "browsed", "search": "searched for", "create": "created", "overwrite": "overwrote",
         "edit": "edited", "mkdir": "created the folder", "copy": "copied", "move": "moved", "rename": "renamed",
         "delete": "deleted"}
_GERUND = {"read": "reading", "browse": "browsing", "search": "searching for", "create": "creating",
           "overwrite": "overwriting", "edit": "editing", "mkdir": "creating the folder", "copy": "copying",
           "move": "moving", "rename": "renaming", "delete": "deleting", "other": "running"}
_SERIALISED = re.compile(r"^\s*\[\+[\d.]+s\]\s*(?:write\s+(?=create|overwrite|append))?")
SHOWN = 3
ROOT = "the workspace root"


def parse_line(line: str) -> tuple[str, str, str]:
    """(verb, object, detail) of a timeline line ("." is the workspace root); else ("other", line, "").

    The shared serialisation's lines (memory/serialize.py: "[+2.1s] write create a.md (...)", content
    blocks below) read the same way: the time and the content are dropped, "write <op>" is the op."""
    line = _SERIALISED.sub("", line.split("\n", 1)[0])
    match = _LINE.match(line)
    if not match or match["verb"] not in _ACTIVITY:
        return "other", line.strip(), ""
    obj = match["object"].strip()
    return match["verb"], ROOT if obj in (".", "./") else obj, (match["detail"] or "").strip()


def _focus(objects: list[str]) -> str:
    """The folder most objects sit in ('the workspace root' for top-level files), else the commonest object."""
    folders = Counter(o.rsplit("/", 1)[0] + "/" if "/" in o else "" for o in objects if " -> " not in o)
    if folders:
        folder, count = folders.most_common(1)[0]
        if count >= 2 or len(folders) == 1:
            return folder or ROOT
    return Counter(objects).most_common(1)[0][0] if objects else "the workspace"


def _names(objects: list[str]) -> str:
    unique = list(dict.fromkeys(objects))
    shown = ", ".join(unique[:SHOWN])
    return shown + (f" and {len(unique) - SHOWN} more" if len(unique) > SHOWN else "")


def _sentence(verb: str, objects: list[str]) -> str:
    n, unique = len(objects), len(set(objects))
    if verb == "search":
        return f"They searched {n} time{'s' * (n > 1)} ({_names(objects)})."
    if verb == "mkdir":
        return f"They created {n} folder{'s' * (n > 1)} ({_names(objects)})."
    noun = ("folder" if verb == "browse" else "file") + ("s" if unique > 1 else "")
    repeat = f", {n} actions in all" if n > unique else ""
    return f"They {_PAST[verb]} {unique} {noun} ({_names(objects)}{repeat})."


def narrate(items: list[str]) -> dict[str, str]:
    """{"title", "narrative", "summary"} for one episode's action lines."""
    if not items:
        return {"title": "Empty episode", "narrative": "No actions were recorded.", "summary": "No actions."}
    parsed = [parse_line(line) for line in items]
    by_verb: dict[str, list[str]] = {}
    for verb, obj, _ in parsed:
        by_verb.setdefault(verb, []).append(obj)
    activity = Counter(_ACTIVITY.get(v, "other") for v, _, _ in parsed)
    main = max(activity, key=lambda a: (activity[a], a != "other"))
    focus = _focus([obj for verb, obj, _ in parsed if verb not in ("search", "other")
                    and _ACTIVITY.get(verb, "other") == main] or [obj for verb, obj, _ in parsed if verb != "search"])
    title = f"{main.capitalize()} {'in' if focus.endswith('/') or focus == ROOT else 'on'} {focus}"
    first, last = parsed[0], parsed[-1]
    sentences = [f"The user started by {_GERUND[first[0]]} {first[1]}."]
    order = [v for v in (*READING, *WRITING, *ORGANISING, "other") if v in by_verb]
    for verb in order[:6]:
        sentences.append(_sentence(verb, by_verb[verb]) if verb != "other"
                         else f"They also took {len(by_verb[verb])} other action(s).")
    if len(parsed) > 1:
        sentences.append(f"The episode ended with {_GERUND[last[0]]} {last[1]}.")
    counts = ", ".join(f"{len(by_verb[v])} {v}" for v in order)
    summary = f"{len(parsed)} actions ({counts}), mostly {main}, centred on {focus}."
    return {"title": title, "narrative": " ".join(sentences[:8]), "summary": summary}
