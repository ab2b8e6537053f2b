"""One session-label rule for every memory: sessions are named by the labels an item's options use.

AnomDet's options say "Session 1" .. "Session 6"; a memory that names sessions by task id ("T-11") leaves no
reader a way to map what it says to an option. Every one of the 13 methods must show each input session's
label in its stored text, and one function must make the labels.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from filegram_kit.bench.inputs import anonymise, interleave
from filegram_kit.llm import get_backend
from filegram_kit.memory import get_memory
from filegram_kit.memory.base import MEMORIES
from filegram_kit.memory.serialize import session_labels
from filegram_kit.traces.load import load_trajectories

TASKS = ["T-01", "T-05", "T-12", "T-20"]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> list:
    from filegram_kit.engine import build_corpus

    out = tmp_path_factory.mktemp("labels") / "corpus"
    build_corpus(out, profiles=["p3"], tasks=TASKS, workers=1, progress=False)
    trajs = sorted(load_trajectories(out, progress=False), key=lambda t: t.task_id)
    order = [2, 0, 3, 1]  # the labels do not follow the task order
    return [anonymise(trajs[k], f"Session {n + 1}") for n, k in enumerate(order)]


def test_the_rule_puts_the_task_id_beside_the_label_and_keeps_plain_sessions_as_they_were(sessions):
    labels = session_labels(sessions)
    assert labels[0] == f"Session 1 ({sessions[0].task_id})" and labels[0] != sessions[0].task_id
    plain = [anonymise(s.__class__(**{**s.__dict__, "label": None})) for s in sessions]
    assert session_labels(plain) == [s.task_id for s in sessions]  # no label: the task id, as before
    twice = session_labels([plain[0], plain[0]])
    assert twice[0] != twice[1] and twice[1].startswith(twice[0])  # a repeated name is made unique


@pytest.mark.parametrize("method", sorted(MEMORIES))
def test_every_method_names_each_session_by_its_option_label(method, sessions):
    backend = get_backend("offline", embedder="lsa")
    memory = get_memory(method).ingest(sessions, backend=backend)
    if method == "no_context":
        assert memory.memory_text() == ""  # stores nothing, so it names nothing
        return
    text = memory.memory_text()
    missing = [s.label for s in sessions if s.label not in text]
    assert not missing, f"{method}: its memory never names {missing}; it must use the harness's labels"
    # and the label is never confused with another ("Session 1" inside "Session 10" does not count)
    assert all(f"{s.label} (" in text or f"{s.label}]" in text or f"{s.label}:" in text or f"{s.label}," in text
               or f"{s.label} " in text for s in sessions)


def test_one_function_makes_session_labels():
    package = Path(__file__).resolve().parents[1] / "filegram_kit"
    defined = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in {"session_labels", "session_label"}:
                defined.append(f"{path.relative_to(package)}:{node.name}")
    assert sorted(defined) == ["memory/serialize.py:session_label", "memory/serialize.py:session_labels"]


def test_an_interleaved_stream_keeps_no_label(sessions):
    merged = interleave(sessions[0], sessions[1])
    assert merged.label is None and session_labels([merged]) == [merged.task_id]


@pytest.mark.parametrize("method", sorted(set(MEMORIES) - {"no_context"}))
def test_a_session_ingested_again_under_another_label_is_named_by_the_new_one(method, sessions):
    """Per-session work is remembered across input sets (memory/stages.py), keyed by the session's events; the
    label the harness gives a session changes between input sets, and the memory must use this set's label,
    whatever an earlier set in the same process called it (the benchmark's rows otherwise depend on the
    order a worker happened to ingest its input sets in)."""
    from filegram_kit.memory.stages import clear_stages

    clear_stages()
    backend = get_backend("offline", embedder="lsa")
    get_memory(method).ingest(sessions, backend=backend)  # remembered under Session 1 .. Session 4
    renamed = [anonymise(s, f"Session {n + 5}") for n, s in enumerate(sessions)]
    text = get_memory(method).ingest(renamed, backend=backend).memory_text()
    fresh_backend = get_backend("offline", embedder="lsa")
    clear_stages()
    fresh = get_memory(method).ingest(renamed, backend=fresh_backend).memory_text()
    stale = [s.label for s in sessions if f"{s.label} " in text or f"{s.label}:" in text or f"{s.label}]" in text
             or f"{s.label}," in text or f"{s.label})" in text]
    assert not stale, f"{method}: a remembered stage kept the labels of an earlier input set: {stale}"
    assert text == fresh  # the same memory as built in a fresh process
