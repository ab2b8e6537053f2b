"""The bench's offline reader and the memory methods are not tuned to the trace engine's wording.

The engine writes its outputs from word lists (style packs, section keys, name vocabularies). A
lexicon in `llm/` or `memory/` that lists the same words would read the generator, not the
behaviour, and would break on a corpus worded otherwise (`filegram corpus --style-pack B`).

Marker words: the words (3+ letters, lowercased, a plural's final s dropped) of every string inside
a list / tuple / set / dict literal of the engine's wording modules (short lowercase tokens such as
file extensions excepted: identifiers, not wording), minus the vocabulary every part shares by
design: the event schema and the persona and task definitions (a method must be able to say
"file", "folder" or "thorough"; "furthermore" and "btw" are the engine's own). A lexicon is a
collection literal or a regex alternation ('a|b|c'); no module may hold 3 or more marker words
across its lexicons, so a lexicon split into a formal and an informal half is caught as well.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "filegram_kit"
ENGINE_WORDING = ("style_packs", "compose", "naming", "work")
SHARED_VOCABULARY = ("traces/schema.py", "data/profiles.json", "data/tasks.json")
SCANNED = ("llm", "memory")
MAX_SHARED = 2
_COLLECTIONS = (ast.List, ast.Tuple, ast.Set, ast.Dict)
_IDENTIFIER = re.compile(r"^[a-z0-9]{1,4}$")  # 'svg', 'tmp', 'img': file extensions and name tokens, not wording


def words(text: str) -> set[str]:
    return {w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w
            for w in re.split(r"[^a-z]+", text.lower()) if len(w) >= 3}


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def lexicons(source: str) -> list[tuple[int, set[str]]]:
    """(line, words) of each collection literal and each regex alternation string in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, _COLLECTIONS):
            found.append((node.lineno, set().union(*map(words, _strings(node)))))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "|" in node.value:
            found.append((node.lineno, words(node.value)))
    return found


def marker_words() -> set[str]:
    engine = set()
    for name in ENGINE_WORDING:
        source = (PACKAGE / "engine" / f"{name}.py").read_text(encoding="utf-8")
        engine |= {w for node in ast.walk(ast.parse(source)) if isinstance(node, _COLLECTIONS)
                   for text in _strings(node) if not _IDENTIFIER.match(text) for w in words(text)}
    shared = set().union(*(words((PACKAGE / path).read_text(encoding="utf-8")) for path in SHARED_VOCABULARY))
    return engine - shared


def overlap(source: str, markers: set[str]) -> dict[int, set[str]]:
    """line -> the marker words of the lexicon there, for lexicons holding any."""
    return {line: hits for line, found in lexicons(source) if (hits := found & markers)}


@pytest.fixture(scope="module")
def markers() -> set[str]:
    return marker_words()


def test_markers_are_the_engines_wording_not_the_shared_vocabulary(markers):
    assert {"furthermore", "accordingly", "btw", "importantly", "fyi", "synopsi", "walkthrough"} <= markers
    assert not {"file", "folder", "read", "move", "thorough", "structured", "report"} & markers


def test_a_lexicon_of_engine_words_is_caught(markers):
    """The check can fail: a formality lexicon copied from the engine, whole or split in two regexes."""
    copied = 'FORMAL = {"furthermore", "accordingly", "importantly", "hereby"}\n'
    split = ('import re\nFORMAL = re.compile(r"\\b(?:therefore|furthermore|accordingly)\\b")\n'
             'INFORMAL = re.compile(r"\\b(?:gonna|btw|lol)\\b")\n')
    general = 'CONNECTIVES = ("however", "therefore", "moreover", "nevertheless", "whereas")\n'
    assert len(set().union(*overlap(copied, markers).values())) == 3
    assert set().union(*overlap(split, markers).values()) == {"furthermore", "accordingly", "btw"}
    assert not overlap(general, markers)


@pytest.mark.parametrize("module", sorted(p.relative_to(PACKAGE).as_posix() for part in SCANNED
                                          for p in (PACKAGE / part).rglob("*.py")))
def test_readers_and_memory_methods_hold_no_engine_lexicon(markers, module):
    hits = overlap((PACKAGE / module).read_text(encoding="utf-8"), markers)
    shared = set().union(*hits.values()) if hits else set()
    where = ", ".join(f"line {line}: {sorted(found)}" for line, found in sorted(hits.items()))
    assert len(shared) <= MAX_SHARED, f"{module} lists the trace engine's words ({where})"
