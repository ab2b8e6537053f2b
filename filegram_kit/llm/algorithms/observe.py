"""Behavioural observations from a window of serialised actions: what the baselines' extraction prompts
ask an LLM for ("facts about how this user reads, writes, organises"), computed offline.

Input: one text per action, as the shared serialisation writes it (memory/serialize.py), optionally
prefixed by a chat role ("user: ..."):

    [+2.1s] read notes/a.md (md, depth 1, lines 1-20, 1068 chars, view 2)
    [+41.3s] write create output/report.md (md, depth 1, 790 chars)
    --- content ---
    # Report ...
    --- end ---

Output: `Observation`s, each a one-sentence statement with its topic (reading, searching, writing,
editing, organizing, naming, cross-modal, workflow, content, style), the indices of the actions
behind it (`sources`), how many actions support it, keywords and the files it names. Statements
count and aggregate (how many files, which types, how deep, how large the edits); content facts
come from the written text (fact_extraction.py) and the writing style from style.py. Lines that are not
actions are ignored, never guessed at. Confidence grows with support: 0.5 + 0.1 per supporting
action, at most 0.95.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from filegram_kit.llm.algorithms.fact_extraction import extract_facts
from filegram_kit.llm.algorithms.style import describe_style

_HEAD = re.compile(r"^(?:(?:user|assistant|system):\s*)?(?:\[\+(?P<t>[\d.]+)s\]\s*)?(?P<verb>[a-z_]+)\s+(?P<rest>.*)$")
_DETAIL = re.compile(r"^(?P<body>.*?)(?:\s+\((?P<detail>[^()]*)\))?\s*$")
_CONTENT = re.compile(r"--- (?:content|diff|content after edit) ---\n(.*?)\n--- end ---", re.DOTALL)
_EDIT_COUNTS = re.compile(r"\+(\d+) -(\d+) lines")
VERBS = ("read", "browse", "search", "write", "edit", "mkdir", "copy", "move", "delete", "rename", "reference",
         "switch")
TOPICS = ("reading", "searching", "writing", "editing", "organizing", "naming", "cross-modal", "workflow", "content",
          "style")
SMALL_EDIT_LINES = 10  # mean lines added + deleted per edit at or below which edits read as small
_PAST_WRITE = {"create": "created", "overwrite": "overwrote", "append": "appended to"}
TEXT_TYPES = frozenset({"md", "txt", "markdown", ""})


@dataclass(frozen=True)
class Action:
    index: int
    verb: str
    target: str  # the path (or 'a -> b' for copy/move/rename/reference/switch, the query for search)
    details: tuple[str, ...]
    seconds: float | None
    content: str = ""
    op: str = ""  # write: create | overwrite | append

    def detail(self, suffix: str) -> str | None:
        """The value of the detail ending in `suffix` ('depth' -> '2' from 'depth 2'; 'chars' -> '790')."""
        for d in self.details:
            words = d.split()
            if len(words) == 2 and words[0] == suffix:
                return words[1]
            if len(words) == 2 and words[1] == suffix:
                return words[0]
        return None

    @property
    def file_type(self) -> str:
        name = self.target.split(" -> ")[-1].rsplit("/", 1)[-1]
        return name.rsplit(".", 1)[-1].lower() if "." in name else ""


@dataclass(frozen=True)
class Observation:
    topic: str
    text: str
    sources: tuple[int, ...]
    keywords: tuple[str, ...] = ()
    entities: tuple[str, ...] = field(default_factory=tuple)

    @property
    def support(self) -> int:
        return len(self.sources)

    @property
    def confidence(self) -> float:
        return round(min(0.95, 0.5 + 0.1 * self.support), 2)


def parse_action(index: int, text: str) -> Action | None:
    """The action a serialised line stands for, or None when the text is not one."""
    head, _, _ = text.partition("\n")
    match = _HEAD.match(head.strip())
    if not match or match["verb"] not in VERBS:
        return None
    body = _DETAIL.match(match["rest"])
    target, details = (body["body"], body["detail"]) if body else (match["rest"], None)
    op = ""
    if match["verb"] == "write":
        op, _, target = target.partition(" ")
    content = "\n".join(_CONTENT.findall(text))
    seconds = float(match["t"]) if match["t"] else None
    parts = tuple(d.strip() for d in (details or "").split(",") if d.strip())
    return Action(index, match["verb"], target.strip(), parts, seconds, content, op)


def parse_actions(items: list[str]) -> list[Action]:
    return [a for i, text in enumerate(items) if (a := parse_action(i, text)) is not None]


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _types(actions: list[Action]) -> str:
    counts = Counter(a.file_type or "no extension" for a in actions)
    return ", ".join(f"{n} {t}" for t, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _folders(paths: list[str]) -> list[str]:
    return list(dict.fromkeys(p.rsplit("/", 1)[0] + "/" for p in paths if "/" in p))


def _max_depth(actions: list[Action]) -> int:
    return max((int(d) for a in actions if (d := a.detail("depth")) and d.isdigit()), default=0)


def _obs(topic: str, text: str, actions: list[Action], *keywords: str) -> Observation:
    files = tuple(dict.fromkeys(a.target for a in actions if a.verb != "search"))[:5]
    return Observation(topic, text, tuple(a.index for a in actions), tuple(k for k in keywords if k), files)


def _reading(acts: list[Action]) -> list[Observation]:
    out = []
    reads = [a for a in acts if a.verb == "read"]
    if reads:
        files = list(dict.fromkeys(a.target for a in reads))
        again = sum(1 for a in reads if (v := a.detail("view")) and v.isdigit() and int(v) > 1)
        ranged = sum(1 for a in reads if any(d.startswith("lines ") for d in a.details))
        distinct = list({a.target: a for a in reads}.values())
        text = f"The user read {len(files)} file{'s' * (len(files) != 1)} ({_types(distinct)}) in {len(reads)} reads"
        text += (f"; {again} {'was a re-read' if again == 1 else 'were re-reads'} of a file already opened" if again
                 else "; no file was read twice")
        text += f"; {ranged} read only a line range." if ranged else "."
        out.append(_obs("reading", text, reads, "read", "reread" if again else "single pass"))
    searches = [a for a in acts if a.verb == "search"]
    if searches:
        kinds = Counter(a.target.split(" ", 1)[0] for a in searches)
        opened = sum(1 for a in searches if any(d.startswith("opened ") for d in a.details))
        text = (f"The user searched {len(searches)} time{'s' * (len(searches) != 1)} "
                f"({', '.join(f'{k} {n}' for k, n in kinds.most_common())})"
                + (f" and opened files from {opened} of the result lists." if opened else "."))
        out.append(_obs("searching", text, searches, "search", *kinds))
    browses = [a for a in acts if a.verb == "browse"]
    if browses:
        text = (f"The user listed directories {len(browses)} time{'s' * (len(browses) != 1)}, "
                f"down to depth {_max_depth(browses)}.")
        out.append(_obs("searching", text, browses, "browse", "directory listing"))
    return out


def _writing(acts: list[Action]) -> list[Observation]:
    out = []
    for op in ("create", "overwrite", "append"):
        writes = [a for a in acts if a.verb == "write" and a.op == op]
        if not writes:
            continue
        sizes = [int(c) for a in writes if (c := a.detail("chars")) and c.isdigit()]
        mean = f" of about {round(sum(sizes) / len(sizes)):,} characters" if sizes else ""
        where = _folders([a.target for a in writes])
        text = (f"The user {_PAST_WRITE[op]} "
                f"{len(writes)} file{'s' * (len(writes) != 1)} ({_types(writes)}){mean}, at depth up to "
                f"{_max_depth(writes)}" + (f" in {', '.join(where[:3])}." if where else " at the workspace root."))
        out.append(_obs("writing", text, writes, op, *(a.file_type for a in writes)))
    edits = [a for a in acts if a.verb == "edit"]
    if edits:
        counts = [tuple(map(int, m.groups())) for a in edits for m in [_EDIT_COUNTS.search(", ".join(a.details))] if m]
        size = sum(x + y for x, y in counts) / len(counts) if counts else 0.0
        files = list(dict.fromkeys(a.target for a in edits))
        kind = "small" if size <= SMALL_EDIT_LINES else "large"
        text = (f"The user edited {_n(len(files), 'file')} in {_n(len(edits), 'edit')}, "
                f"{kind} edits of about {size:.0f} changed lines each" + (
                    f"; {files[0]} was edited {len(edits)} times." if len(files) == 1 and len(edits) > 1 else "."))
        out.append(_obs("editing", text, edits, "edit", f"{kind} edits"))
    return out


def _organizing(acts: list[Action]) -> list[Observation]:
    out = []
    dirs = [a for a in acts if a.verb == "mkdir"]
    if dirs:
        text = (f"The user created {len(dirs)} folder{'s' * (len(dirs) != 1)} ({', '.join(a.target for a in dirs[:3])}"
                f"{' and more' if len(dirs) > 3 else ''}), down to depth {_max_depth(dirs)}.")
        out.append(_obs("organizing", text, dirs, "mkdir", "folders"))
    for verb, past in (("move", "moved"), ("copy", "copied"), ("rename", "renamed"), ("delete", "deleted")):
        done = [a for a in acts if a.verb == verb]
        if not done:
            continue
        text = f"The user {past} {len(done)} file{'s' * (len(done) != 1)}"
        if verb == "copy" and (backups := sum("backup" in a.details for a in done)):
            text += f", {backups} of them as backups"
        if verb == "delete" and (temporary := sum("temporary" in a.details for a in done)):
            text += f", {temporary} of them temporary"
        if verb in ("move", "rename"):
            text += f" ({'; '.join(a.target for a in done[:2])})"
        out.append(_obs("naming" if verb == "rename" else "organizing", text + ".", done, verb))
    return out


def naming_style(name: str) -> str:
    """How a file name is written: dated, versioned, snake_case, kebab-case, camelCase, spaced or plain."""
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if re.search(r"(19|20)\d{2}[-_]?\d{2}", stem):
        return "dated"
    if re.search(r"(?:^|[-_ ])(v\d+|final|draft|old|new|copy|backup)(?:$|[-_ ])", stem.lower()):
        return "versioned"
    if "_" in stem:
        return "snake_case"
    if "-" in stem:
        return "kebab-case"
    if re.search(r"[a-z][A-Z]", stem):
        return "camelCase"
    return "spaced" if " " in stem else "plain"


def _naming_and_links(acts: list[Action]) -> list[Observation]:
    out = []
    created = [a for a in acts if a.verb == "write" and a.op == "create"]
    if created:
        styles = Counter(naming_style(a.target) for a in created)
        text = (f"The user named new files {', '.join(f'{s} ({n})' for s, n in styles.most_common())}, "
                f"e.g. {', '.join(a.target.rsplit('/', 1)[-1] for a in created[:2])}.")
        out.append(_obs("naming", text, created, *styles))
        other = [a for a in created if a.file_type not in TEXT_TYPES]
        if other:
            out.append(_obs("cross-modal", f"The user produced non-text files ({_types(other)}).", other,
                            *(a.file_type for a in other)))
    links = [a for a in acts if a.verb in ("reference", "switch")]
    if links:
        refs = sum(a.verb == "reference" for a in links)
        text = f"The user moved between files {len(links) - refs} times and linked one file to another {refs} times."
        out.append(_obs("cross-modal" if refs else "workflow", text, links, "reference", "switch"))
    return out


def _workflow(acts: list[Action]) -> list[Observation]:
    first_write = next((k for k, a in enumerate(acts) if a.verb in ("write", "edit")), None)
    if first_write is None or len(acts) < 2:
        return []
    before = acts[:first_write]
    looked = sum(a.verb in ("read", "browse", "search") for a in before)
    times = [a.seconds for a in acts if a.seconds is not None]
    span = f" over {max(times) - min(times):.0f} seconds" if len(times) > 1 else ""
    text = (f"The user took {looked} reading or search action{'s' * (looked != 1)} before the first write, "
            f"then {len(acts) - first_write} more actions{span}.")
    return [_obs("workflow", text, acts, "read first" if looked else "write first")]


def _content(acts: list[Action], max_facts: int) -> list[Observation]:
    written = [a for a in acts if a.content and a.verb in ("write", "edit")]
    if not written:
        return []
    text = "\n".join(a.content for a in written)
    style = describe_style(text)
    out = [_obs("style", f"The user writes {style.get('language', 'en')} text in a {style.get('tone', 'neutral')} "
                f"tone, {style.get('structure', 'moderate')} and {style.get('detail', 'balanced')} in detail.",
                written, style.get("tone", ""), style.get("structure", ""), style.get("detail", ""))]
    for fact in extract_facts(text, max_facts=max_facts):
        source = [a for a in written if fact[:40] in a.content] or written[:1]
        out.append(_obs("content", f"The user wrote: {fact}", source, "content"))
    return out


# words (5-letter prefixes) a label naming each topic is likely to use: "consumption" for reading, "iteration"
# for editing; a label is matched to an observation by the prefixes they share (closest_label)
TOPIC_CUES = {
    "reading": {"read", "readi", "consu", "input"}, "searching": {"searc", "consu", "navig", "brows"},
    "writing": {"write", "writi", "produ", "outpu"}, "content": {"produ", "conte", "writi", "knowl"},
    "style": {"style", "produ", "tone", "writi", "prefe"}, "editing": {"edit", "editi", "itera", "revis"},
    "organizing": {"organ", "struc", "folde", "direc", "curat"}, "naming": {"namin", "name", "organ"},
    "cross-modal": {"cross", "modal", "media", "multi"}, "workflow": {"work", "workf", "rhyth"},
}
VERSION_CUES = frozenset({"backup", "copy", "overwrite", "versioned", "dated", "rename"})


def closest_label(observation: Observation, labels: list[str]) -> str | None:
    """The label (a dimension or a memory type, e.g. 'work rhythm/curation', 'reading_habit') sharing most
    cue prefixes with the observation's topic and keywords; None when none shares any (ties: the earlier)."""
    cues = set(TOPIC_CUES.get(observation.topic, {observation.topic[:5]})) | {k[:5] for k in observation.keywords}
    if VERSION_CUES & set(observation.keywords):
        cues.add("versi")
    scores = [len(cues & {w[:5] for w in re.split(r"[\s/_-]+", label.lower()) if w}) for label in labels]
    if not scores or max(scores) == 0:
        return None
    return labels[max(range(len(labels)), key=lambda k: (scores[k], -k))]


def observe(items: list[str], *, max_facts: int = 3) -> list[Observation]:
    """Observations of a window of serialised actions, in topic order (reading first, content and style last)."""
    acts = parse_actions(items)
    if not acts:
        return []
    found = [*_reading(acts), *_writing(acts), *_organizing(acts), *_naming_and_links(acts), *_workflow(acts),
             *_content(acts, max_facts)]
    return sorted(found, key=lambda o: TOPICS.index(o.topic))
