"""The shared serialisation (memory/serialize.py) and the core baselines: no_context, full_context, naive_rag."""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest

from filegram_kit.llm import get_backend
from filegram_kit.memory import GroundTruthError, get_memory
from filegram_kit.memory.context import FullContext, NoContext
from filegram_kit.memory.rag import NaiveRAG, parse_chunking
from filegram_kit.memory.serialize import event_lines, serialize, serialize_trajectory
from filegram_kit.traces.cleaning import clean
from filegram_kit.traces.load import load_trajectories
from tests.builders import browse, delete, edit, make, mkdir, move, read, search, write

PROFILE = "p1_methodical"


@pytest.fixture(scope="module")
def offline():
    return get_backend("offline")


def _session(tmp_path, task, specs):
    return make(tmp_path, f"{PROFILE}_{task}", specs)


# -- serialisation ---------------------------------------------------------------------------------------
def test_serialisation_of_a_raw_release_run_names_no_persona_and_inlines_content(corpus):
    raw = load_trajectories(corpus, profiles=[PROFILE])
    text = serialize(clean(raw).trajectories)
    assert text.startswith("=== Session T-05 ===\n")
    for leak in (PROFILE, "methodical", "p1_", "sandbox", "sess-1", "claude", "anthropic"):
        assert leak not in text
    lines = [line for line in text.splitlines() if line.startswith("[+")]
    verbs = [re.match(r"\[\+[\d.]+s\] (\w+)", line)[1] for line in lines]
    assert verbs == ["read", "switch", "read", "browse", "search", "write", "reference", "edit", "mkdir", "copy",
                     "move", "rename", "delete"]
    assert lines[0] == "[+0.0s] read notes/a.md (md, depth 1, lines 1-40, 900 chars, view 1)"
    assert lines[2].endswith("view 2, revisit after 5.0s)") and lines[2].startswith("[+2.0s]")
    assert "copy report.md -> report.md.bak (backup)" in text and "switch (none) -> notes/a.md" in text
    assert '--- content ---\n# Report\n\n| item | value |\n|---|---|\n| a | 1 |\n--- end ---' in text
    assert re.search(r"--- diff ---\n--- report.md\n\+\+\+ report.md\n@@ .*\n\+\| b \| 2 \|\n--- end ---", text, re.S)


def test_serialisation_refuses_uncleaned_runs(corpus):
    raw = load_trajectories(corpus, profiles=[PROFILE])
    with pytest.raises(ValueError, match=r"event 0 \(session_start\).*clean"):
        serialize(raw)


def test_event_lines_keep_order_ids_and_relative_time(tmp_path):
    traj = _session(tmp_path, "T-01", [browse(), read("a.md"), search("budget"), mkdir(2, "out/x"),
                                       move("a.md", "out/x/a.md"), delete("scratch.tmp")])
    lines = event_lines(traj)
    assert [eid for _, eid in lines] == [f"{PROFILE}_T-01-{i}" for i in range(6)]
    assert [text.split("]")[0] for text, _ in lines] == [f"[+{i}.0s" for i in range(6)]
    assert lines[2][0] == '[+2.0s] search grep "budget" (1 matches)'
    assert lines[4][0] == "[+4.0s] move a.md -> out/x/a.md (depth 1)"
    text = serialize_trajectory(traj)
    assert text == "=== Session T-01 ===\n" + "\n".join(t for t, _ in lines)
    assert PROFILE not in text  # event ids and trajectory ids carry the persona name: never in the text


def test_content_truncation_and_its_validation(tmp_path):
    body = "x" * 90 + "TAIL-MARK"
    traj = _session(tmp_path, "T-01", [write("notes/r.md", body), edit("notes/r.md", 2, 1, text="new body")])
    full = serialize_trajectory(traj)
    assert "TAIL-MARK" in full and "--- content after edit ---\nnew body\n--- end ---" in full
    cut = serialize_trajectory(traj, max_content_chars=10)
    assert "TAIL-MARK" not in cut
    assert "--- content ---\nxxxxxxxxxx\n[... 89 more characters cut]\n--- end ---" in cut
    assert "new body" in cut  # shorter than the limit: untouched
    with pytest.raises(ValueError, match="max_content_chars"):
        get_memory("full_context", max_content_chars=-2)


# -- no context / full context ---------------------------------------------------------------------------------
def test_no_context_is_empty_but_still_guards_and_requires_ingest(tmp_path, offline):
    memory = get_memory("no_context")
    assert isinstance(memory, NoContext) and memory.params() == {"method": "no_context"}
    with pytest.raises(RuntimeError, match="ingest"):
        memory.retrieve("q", backend=offline)
    memory.ingest([_session(tmp_path, "T-01", [read(), write("a.md", "hello")])], backend=offline)
    context = memory.retrieve("How does this user name files?", backend=offline)
    assert context.text == "" and context.sources == () and context.tokens == 0
    assert memory.memory_text() == "" and memory.memory_tokens() == 0


def _three_sessions(tmp_path):
    return [_session(tmp_path, f"T-0{n}", [read(f"n{n}.md"), write(f"out/r{n}.md", f"report {n} " * 20),
                                           edit(f"out/r{n}.md", 1, 0, text="done")]) for n in (1, 2, 3)]


def test_full_context_keeps_whole_sessions_then_cuts_and_marks(tmp_path, offline):
    trajs = _three_sessions(tmp_path)
    texts = [serialize_trajectory(t) for t in trajs]
    budget = len(texts[0]) + 2 + 60  # session 1 whole, 60 characters of session 2
    memory = get_memory("full_context", max_chars=budget).ingest(trajs, backend=offline)
    context = memory.retrieve("anything", backend=offline)
    kept, marker = context.text.rsplit("\n", 1)
    assert kept == (texts[0] + "\n\n" + texts[1])[:budget]
    cut = len("\n\n".join(texts)) - budget
    assert marker == (f"[... full context cut at {budget:,} characters: {cut:,} more characters not shown "
                      "(session T-02 cut, 1 more session left out)]")
    assert "T-03" not in kept
    assert context.sources == (*[e.event_id for e in trajs[0].events], trajs[1].events[0].event_id)
    assert memory.retrieve("something else", backend=offline) == context
    assert memory.memory_text() == context.text
    assert memory.params() == {"method": "full_context", "max_chars": budget, "max_content_chars": -1}


def test_full_context_under_budget_is_the_whole_serialisation(tmp_path, offline):
    trajs = _three_sessions(tmp_path)
    memory = FullContext().ingest(trajs, backend=offline)
    assert memory.retrieve("q", backend=offline).text == serialize(trajs)
    assert memory.cut_chars_ == 0 and len(memory.sources_) == 9
    with pytest.raises(ValueError, match="max_chars"):
        FullContext(max_chars=0)


# -- naive RAG ---------------------------------------------------------------------------------------------------
def test_event_chunks_never_cross_sessions(tmp_path, offline):
    long = _session(tmp_path, "T-01", [read(f"f{i}.md") for i in range(25)])
    short = _session(tmp_path, "T-02", [browse(), read("g.md"), write("h.md", "hi")])
    memory = get_memory("naive_rag").ingest([long, short], backend=offline)
    assert [(c.session, c.span, len(c.event_ids)) for c in memory.chunks_] == [
        ("T-01", "events 1-20", 20), ("T-01", "events 21-25", 5), ("T-02", "events 1-3", 3)]
    assert memory.chunks_[1].event_ids == tuple(e.event_id for e in long.events[20:])
    assert memory.chunks_[2].text == "\n".join(t for t, _ in event_lines(short))
    assert memory.embeddings_.shape[0] == 3


def test_token_windows_overlap_by_64_tokens_of_4_characters(tmp_path, offline):
    traj = _session(tmp_path, "T-01", [read("a.md"), write("big.md", "lorem ipsum " * 600), browse()])
    memory = get_memory("naive_rag", chunking="tokens:512/64").ingest([traj], backend=offline)
    text, chunks = serialize_trajectory(traj), memory.chunks_
    assert len(text) > 3 * 2048 and all(len(c.text) == 2048 for c in chunks[:-1])
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert a.text[-256:] == b.text[:256]
    assert "".join(c.text[: 1792] for c in chunks[:-1]) + chunks[-1].text == text
    ids = [e.event_id for e in traj.events]
    assert chunks[0].event_ids == tuple(ids[:2]) and chunks[-1].event_ids == tuple(ids[1:])
    assert chunks[0].text.startswith("=== Session T-01 ===")


class _KeywordBackend:
    """Embeds a text as counts of three keywords (normalised): cosine order is known exactly."""

    WORDS = ("alpha", "beta", "gamma")

    def __init__(self):
        self.calls = []

    @contextlib.contextmanager
    def phase(self, name):
        yield

    def embed(self, texts, *, input_type="document"):
        self.calls.append((input_type, len(texts)))
        rows = np.array([[t.count(w) for w in self.WORDS] for t in texts], dtype=np.float32) + 1e-3
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_top_k_chunks_come_in_cosine_order_with_their_event_ids(tmp_path):
    notes = {"T-01": "alpha alpha beta", "T-02": "gamma gamma gamma", "T-03": "beta beta beta beta alpha"}
    trajs = [_session(tmp_path, task, [read(), write("n.md", text)]) for task, text in notes.items()]
    backend = _KeywordBackend()
    memory = get_memory("naive_rag", top_k=2).ingest(trajs, backend=backend)
    assert backend.calls == [("document", 3)]
    context = memory.retrieve("beta beta alpha", backend=backend)
    assert backend.calls[-1] == ("query", 1)
    assert list(context.blocks) == ["1. Session T-03, events 1-2", "2. Session T-01, events 1-2"]
    assert context.text.startswith("## 1. Session T-03, events 1-2\n")
    assert context.sources == tuple(e.event_id for t in (trajs[2], trajs[0]) for e in t.events)
    scores = [s for _, s in memory.rank("beta beta alpha", backend=backend)]
    assert scores == sorted(scores, reverse=True) and len(scores) == 2


def test_offline_retrieval_finds_the_chunk_a_query_quotes(tmp_path, offline):
    notes = ["The quarterly budget invoice payment reconciliation for the finance department.",
             "Meeting agenda, attendees and minutes of the weekly project review.",
             "Hiking trail map, mountain weather forecast and camping equipment list."]
    trajs = [_session(tmp_path, f"T-0{i}", [browse(), write(f"n{i}.md", text)]) for i, text in enumerate(notes)]
    memory = get_memory("naive_rag", top_k=3).ingest(trajs, backend=offline)
    for i in range(3):
        context = memory.retrieve("hiking mountain camping weather" if i == 2 else notes[i], backend=offline)
        assert next(iter(context.blocks)) == f"1. Session T-0{i}, events 1-2"
    assert all(c.text in memory.memory_text() for c in memory.chunks_)


@pytest.mark.parametrize("spec", ["events:0", "tokens:64/64", "tokens:512", "chars:100", "events: 20", 20])
def test_bad_chunking_is_refused_with_the_accepted_forms(spec):
    with pytest.raises(ValueError, match=r"'events:N'.*'tokens:W/O'"):
        NaiveRAG(chunking=spec)


def test_rag_params_validation_and_ingest_first(offline):
    assert parse_chunking("tokens:512/64") == ("tokens", 512, 64)
    memory = get_memory("naive_rag", chunking="tokens:256/32", top_k=3)
    assert memory.params() == {"method": "naive_rag", "chunking": "tokens:256/32", "top_k": 3,
                               "max_content_chars": -1}
    with pytest.raises(ValueError, match="top_k"):
        NaiveRAG(top_k=0)
    with pytest.raises(RuntimeError, match="ingest"):
        memory.retrieve("q", backend=offline)
    with pytest.raises(RuntimeError, match="ingest"):
        memory.memory_text()


@pytest.mark.parametrize("name", ["no_context", "full_context", "naive_rag"])
def test_every_baseline_refuses_ground_truth_and_mixed_users(tmp_path, offline, name):
    tagged = _session(tmp_path, "T-01", [read(), ("file_read", {"file_path": "b.md", "view_count": 1,
                                                                "perturbation": {"dimension": "A"}})])
    with pytest.raises(GroundTruthError, match="perturbation"):
        get_memory(name).ingest([tagged], backend=offline)
    other = make(tmp_path, "p2_thorough_reviser_T-01", [read()])
    with pytest.raises(ValueError, match="one user"):
        get_memory(name).ingest([_session(tmp_path, "T-02", [read()]), other], backend=offline)
