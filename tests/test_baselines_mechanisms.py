"""The nine memory baselines' mechanisms, each on a small hand-made trajectory set (offline backend unless said)."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from filegram_kit.llm import get_backend
from filegram_kit.llm.algorithms.memory_ops import decide_updates
from filegram_kit.llm.base import Computed
from filegram_kit.llm.memory_tasks import MEMORY_TASKS, RECORDS
from filegram_kit.llm.prompting import Completion, PromptBackend, _decode, template_fields
from filegram_kit.llm.tasks import TASKS
from filegram_kit.memory import get_memory
from filegram_kit.memory.base import MEMORIES
from filegram_kit.memory.mma import MMA, confidences, source_score
from filegram_kit.memory.stages import clear_stages

from .builders import browse, edit, make, move, read, search, write

PROFILE = "p9_tester"
NEW = ("eager_summary", "mem0", "zep", "memos", "simplemem", "evermemos", "memu", "mma", "visrag")
REPORT = ("# Quarterly budget review\n\nThe finance team approved 42,000 EUR for Q3 on 2024-05-03.\n"
          "Anna Berg owns the follow-up; the audit closes on 2024-06-30.\n")


@pytest.fixture
def offline():
    clear_stages()  # a stage remembered by another test must not hide this one's calls
    return get_backend("offline")


def session(tmp_path, task, specs):
    return make(tmp_path, f"{PROFILE}_{task}", specs)


def user(tmp_path):
    """Three sessions: reading and writing a report, re-reading and editing it, then archiving it."""
    return [session(tmp_path, "T-01", [browse(), read("notes/a.md"), read("notes/b.md"), search("budget"),
                                       write("drafts/report.md", REPORT)]),
            session(tmp_path, "T-02", [read("notes/a.md"), read("notes/a.md", view=2), read("notes/c.md"),
                                       read("notes/d.md"), read("notes/e.md"), edit("drafts/report.md", 3, 1)]),
            session(tmp_path, "T-03", [browse("drafts"), move("drafts/report.md", "final/report.md")])]


def event_ids(trajs):
    return {e.event_id for t in trajs for e in t.events}


# -- every method ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NEW)
def test_each_baseline_is_registered_cites_only_ingested_events_and_counts_its_ingest(name, tmp_path, offline):
    trajs = user(tmp_path)
    memory = get_memory(name).ingest(trajs, backend=offline)
    context = memory.retrieve("How does this user organise and revise their reports?", backend=offline)
    assert MEMORIES[name] and memory.params()["method"] == name
    assert context.text and context.sources and set(context.sources) <= event_ids(trajs)
    assert PROFILE not in memory.memory_text() and "tester" not in context.text
    cost = memory.ingest_cost_
    assert cost["seconds"] >= 0 and cost["input_tokens"] == 0  # offline bills nothing ...
    assert (cost["calls"] > 0) == (cost["est_input_tokens"] > 0)  # ... but every call's prompt is estimated
    again = get_memory(name).ingest(trajs, backend=offline)  # served from the stage memo
    assert {k: v for k, v in again.ingest_cost_.items() if k != "seconds"} == \
        {k: v for k, v in cost.items() if k != "seconds"}
    assert again.memory_text() == memory.memory_text()


def test_llm_calling_baselines_make_calls_and_context_baselines_only_embed(tmp_path, offline):
    trajs = user(tmp_path)
    calls = {name: get_memory(name).ingest(trajs, backend=offline).ingest_cost_["calls"] for name in NEW}
    assert calls["mma"] == 1 and calls["visrag"] == 2  # one embedding batch each (visrag: chunks + pages)
    assert calls["eager_summary"] == calls["memos"] == calls["simplemem"] == 3  # one per session (small sessions)
    assert calls["memu"] == 4  # an item batch per session, then one categorisation
    # mem0: facts + update (+ embeddings) per batch; zep: triples + contradiction checks; evermemos: boundary checks
    assert all(calls[n] > 6 for n in ("mem0", "zep", "evermemos"))


# -- eager summarization -------------------------------------------------------------------------------------
def test_eager_summary_writes_one_bounded_summary_per_session_citing_all_of_it(tmp_path, offline):
    trajs = user(tmp_path)
    memory = get_memory("eager_summary").ingest(trajs, backend=offline)
    assert [r.session for r in memory.summaries_] == ["T-01", "T-02", "T-03"]
    assert memory.summaries_[0].sources == tuple(e.event_id for e in trajs[0].events)
    assert "re-read" in memory.summaries_[1].text and "42,000" in memory.summaries_[0].text  # what it wrote
    short = get_memory("eager_summary", min_words=10, max_words=20).ingest(trajs, backend=offline)
    assert all(len(r.text.split()) <= 20 for r in short.summaries_)
    with pytest.raises(ValueError, match="min_words"):
        get_memory("eager_summary", min_words=500, max_words=400)


# -- mem0 -----------------------------------------------------------------------------------------------------
def test_mem0_update_replaces_a_fact_while_the_history_keeps_the_old_one(tmp_path, offline):
    trajs = [session(tmp_path, "T-01", [read("notes/a.md"), read("notes/b.md")]),
             session(tmp_path, "T-02", [read("notes/a.md"), read("notes/b.md"), read("notes/c.md"),
                                        read("notes/d.md")])]
    memory = get_memory("mem0").ingest(trajs, backend=offline)
    texts = [f.text for f in memory.memories_.values()]
    assert any("read 4 files" in t for t in texts) and not any("read 2 files" in t for t in texts)
    updated = [row for row in memory.history() if row["event"] == "UPDATE"]
    assert updated and "read 2 files" in updated[0]["old_memory"] and "read 4 files" in updated[0]["new_memory"]
    first = memory.history(updated[0]["memory_id"])
    assert [r["event"] for r in first][:2] == ["ADD", "UPDATE"] and first[0]["new_memory"] == first[1]["old_memory"]
    fact = memory.memories_[updated[0]["memory_id"]]
    assert set(e.event_id for t in trajs for e in t.events) >= set(fact.sources) > {e.event_id for e in trajs[1].events}


def test_mem0_update_decisions_add_update_delete_and_none():
    existing = [{"id": "0", "text": "The user read 3 files (3 md) in 3 reads."}]
    events = decide_updates(["The user read 3 files (3 md) in 3 reads.", "The user read 7 files (5 md) in 9 reads.",
                             "The user searched 2 times (grep 2).", "The user no longer searched 2 times (grep 2)."],
                            existing)
    assert [e["event"] for e in events] == ["NONE", "UPDATE", "ADD", "DELETE"]
    assert events[1]["id"] == "0" and events[1]["old_memory"] == existing[0]["text"]
    assert events[2]["id"] == events[3]["id"] == "1"


def test_mem0_searches_at_most_its_limit_and_respects_a_threshold(tmp_path, offline):
    trajs = user(tmp_path)
    memory = get_memory("mem0", search_limit=2).ingest(trajs, backend=offline)
    assert len(memory.search("files", backend=offline)) == 2
    strict = get_memory("mem0", min_score=1.01).ingest(trajs, backend=offline)
    assert strict.search("files", backend=offline) == []
    assert "Memories" not in strict.retrieve("x", backend=offline).text


# -- zep ------------------------------------------------------------------------------------------------------
def test_zep_invalidates_a_contradicted_edge_and_keeps_it(tmp_path, offline):
    trajs = user(tmp_path)
    memory = get_memory("zep").ingest(trajs, backend=offline)
    located = [e for e in memory.edges_ if e["subject"] == "report.md" and e["relation"] == "LOCATED_IN"]
    assert [e["object"] for e in located] == ["drafts/", "final/"]
    assert located[0]["invalid_at"] == located[1]["valid_from"] and located[1]["invalid_at"] is None
    assert memory.graph_.has_edge("report.md", "drafts/") and memory.graph_.has_edge("report.md", "final/")
    facts = memory.retrieve("where is the report?", backend=offline).blocks["Facts"].splitlines()
    assert "until session T-03" in facts[-1]  # invalidated facts come after the valid ones
    assert all(e["invalid_at"] is None for e in memory.edges_ if e["kind"] == "event")


def test_zep_hybrid_search_ranks_the_matching_fact_first(tmp_path, offline):
    memory = get_memory("zep", search="hybrid", max_facts=3).ingest(user(tmp_path), backend=offline)
    facts = memory.ranked("search budget", backend=offline)
    assert len(facts) == 3 and facts[0]["relation"] == "SEARCHED"


# -- memos ----------------------------------------------------------------------------------------------------
def test_memos_consolidates_overlapping_cells_of_one_type(tmp_path, offline):
    trajs = [session(tmp_path, f"T-0{i}", [read("notes/a.md"), read("notes/b.md")]) for i in range(1, 4)]
    memory = get_memory("memos").ingest(trajs, backend=offline)
    reading = [c for c in memory.cells_ if "read 2 files" in c.content]
    assert len(reading) == 1 and reading[0].consolidated_from == 2 and memory.extracted_ > len(memory.cells_)
    assert {s for c in reading for s in c.sources} == {e.event_id for t in trajs for e in t.events}
    loose = get_memory("memos", merge_overlap=1.0).ingest(trajs, backend=offline)
    assert len(loose.cells_) == loose.extracted_  # nothing overlaps by more than everything


# -- simplemem ------------------------------------------------------------------------------------------------
def test_simplemem_dedups_repeated_entries_and_raises_their_confidence(tmp_path, offline):
    # sessions read 2, 3 and 4 files: the same statement with other counts (an exact repeat is never extracted:
    # the extractor is shown the previous entries)
    trajs = [session(tmp_path, f"T-0{n}", [read(f"notes/{k}.md") for k in range(n + 1)]) for n in range(1, 4)]
    memory = get_memory("simplemem").ingest(trajs, backend=offline)
    reading = [e for e in memory.entries_ if " read " in e.text]
    assert len(reading) == 1 and reading[0].observation_count == 3 and "read 2 files" in reading[0].text
    single = get_memory("simplemem").ingest(trajs[:1], backend=offline)
    once = next(e for e in single.entries_ if "read 2 files" in e.text)
    assert reading[0].confidence == pytest.approx(min(1.0, once.confidence + 0.2))
    assert [e.confidence for e in memory.entries_] == sorted((e.confidence for e in memory.entries_), reverse=True)


def test_simplemem_keeps_its_most_confident_entries(tmp_path, offline):
    memory = get_memory("simplemem", keep=2).ingest(user(tmp_path), backend=offline)
    assert len(memory.entries_) == 2


# -- evermemos ------------------------------------------------------------------------------------------------
def test_evermemos_forces_a_boundary_at_30_events(tmp_path, offline):
    trajs = [session(tmp_path, "T-01", [read(f"notes/{i}.md") for i in range(70)])]  # one folder, one activity
    memory = get_memory("evermemos").ingest(trajs, backend=offline)
    assert [(len(c.event_ids), c.forced) for c in memory.cells_] == [(30, True), (30, True), (10, False)]
    short = get_memory("evermemos", force_at=10).ingest(trajs, backend=offline)
    assert [len(c.event_ids) for c in short.cells_] == [10] * 7
    odd = get_memory("evermemos", force_at=12).ingest(trajs, backend=offline)  # not a multiple of the checks
    assert [len(c.event_ids) for c in odd.cells_] == [12] * 5 + [10]


def test_evermemos_cuts_where_the_activity_and_folders_shift(tmp_path, offline):
    reading = [read(f"notes/{i}.md") for i in range(10)]
    writing = [write(f"out/r{i}.md", REPORT) for i in range(10)]
    memory = get_memory("evermemos").ingest([session(tmp_path, "T-01", reading + writing)], backend=offline)
    assert [len(c.event_ids) for c in memory.cells_] == [10, 10] and not any(c.forced for c in memory.cells_)
    assert memory.patterns_ and all(p["confidence"] in ("high", "medium", "low") for p in memory.patterns_.values())


# -- memu -----------------------------------------------------------------------------------------------------
def test_memu_builds_resources_items_and_categories(tmp_path, offline):
    trajs = user(tmp_path)
    memory = get_memory("memu", retrieval="tiered").ingest(trajs, backend=offline)
    assert [r.sources[0] for r in memory.resources_] == [e.event_id for t in trajs for e in t.events]
    assert memory.items_ and all(set(i.sources) <= event_ids(trajs) for i in memory.items_)
    placed = sorted(k for c in memory.categories_ for k in c.items)
    assert placed == list(range(len(memory.items_)))  # every item in exactly one category
    context = memory.retrieve("How often does the user re-read notes?", backend=offline)
    assert set(context.blocks) == {"Categories", "Items", "Resources"}
    item_sources = {e for line in context.blocks["Items"].splitlines() for i in memory.items_ if i.line() == line
                    for e in i.sources}
    shown = [r for r in memory.resources_ if r.line() in context.blocks["Resources"].splitlines()]
    assert shown and all(r.sources[0] in item_sources for r in shown)


# -- mma ------------------------------------------------------------------------------------------------------
def test_mma_reranks_cosine_candidates_by_confidence(tmp_path, offline):
    memory = MMA(k=2, candidates=2).ingest(user(tmp_path), backend=offline)
    memory.chunks_ = memory.chunks_[:1] * 3
    query = offline.embed(["query"], input_type="query")[0]
    other = np.linalg.qr(np.column_stack([query, np.eye(len(query))[:, :3]]))[0][:, 1]
    rows = [0.9 * query + np.sqrt(1 - 0.81) * other, 0.8 * query + 0.6 * other, 0.5 * query + np.sqrt(0.75) * other]
    memory.embeddings_ = np.array(rows, dtype=np.float32)
    memory.confidence_ = np.array([0.1, 0.9, 0.9])
    ranked = memory.rank("query", backend=offline)  # pool: the 4 nearest (all 3); 0.6 cos + 0.4 confidence
    assert [i for i, _, _ in ranked] == [1, 2]
    assert ranked[0][2] == pytest.approx(0.6 * 0.8 + 0.4 * 0.9, abs=1e-4)


def test_mma_confidence_weighs_source_recency_and_agreement():
    assert source_score(["file_search", "file_search", "file_read"]) == 0.80
    assert source_score(["file_write", "file_edit"]) == 0.85 and source_score(["file_read"]) == 0.95
    vectors = np.eye(3, dtype=np.float32)  # no two chunks agree
    scores = confidences(np.array([0.95, 0.95, 0.95]), vectors)
    assert np.all(np.diff(scores) > 0)  # the newest chunk is the most recent
    assert scores[-1] == pytest.approx(0.4 * 0.95 + 0.3 * 1.0)


# -- visrag ---------------------------------------------------------------------------------------------------
def test_visrag_renders_created_documents_and_says_how_it_read_them(tmp_path, offline):
    trajs = user(tmp_path) + [session(tmp_path, "T-04", [write("tiny.md", "short")])]
    memory = get_memory("visrag").ingest(trajs, backend=offline)
    assert [p.path for p in memory.pages_] == ["drafts/report.md"] and memory.page_mode_ == "text"
    assert memory.pages_[0].png.startswith(b"\x89PNG") and "42,000" in memory.pages_[0].text
    context = memory.retrieve("quarterly budget review finance", backend=offline)
    assert any("page read as text" in heading for heading in context.blocks)


def test_visrag_embeds_page_images_where_the_backend_embeds_pixels(tmp_path, offline):
    class Pixels(type(offline)):
        embeds_images = True
        images = 0

        def embed_images(self, images):
            Pixels.images += len(images)
            return super().embed_images(images)

    memory = get_memory("visrag").ingest(user(tmp_path), backend=Pixels())
    assert memory.page_mode_ == "image" and Pixels.images == 1


# -- the LLM path: prompts rendered, replies parsed, bad replies counted ----------------------------------------
class Scripted(PromptBackend):
    """Answers each memory task with a fixed JSON reply (or a broken one), and embeds like offline."""

    name = "scripted"

    def __init__(self, replies):
        super().__init__("scripted-1")
        self.replies, self.prompts, self.offline = replies, [], get_backend("offline")

    def _complete(self, prompt, *, json_mode, max_tokens):
        self.prompts.append(prompt)
        task = next(t for t, marker in MARKERS.items() if marker in prompt)
        return Completion(self.replies[task])

    def _embed(self, texts, *, input_type):
        return self.offline.embed(texts, input_type=input_type).tolist(), 0


MARKERS = {"extract_user_facts": "personal information organiser", "update_memory": "You manage a memory",
           "extract_triples": "knowledge-graph triples", "find_contradictions": "Which existing facts"}


def test_mem0_and_zep_run_through_a_prompting_backend_and_count_bad_replies(tmp_path):
    clear_stages()
    replies = {"extract_user_facts": json.dumps({"facts": ["Prefers drafts folders"]}),
               "update_memory": json.dumps({"memory": [{"id": "0", "text": "Prefers drafts folders", "event": "ADD"}]}),
               "extract_triples": "```json\n" + json.dumps({"triples": [
                   {"subject": "report", "relation": "LOCATED_IN", "object": "drafts", "kind": "state", "sources": [4]},
                   {"subject": "report", "relation": "LOCATED_IN", "object": "final", "kind": "state"}]}) + "\n```",
               "find_contradictions": '{"contradicted": [0]}'}
    trajs = user(tmp_path)
    backend = Scripted(replies)
    mem0 = get_memory("mem0").ingest(trajs, backend=backend)
    assert [f.text for f in mem0.memories_.values()] == ["Prefers drafts folders"] * 3  # the model ADDs per batch
    assert [r["event"] for r in mem0.history()] == ["ADD"] * 3 and mem0.parse_failures_ == 0
    assert any("[0] user: [+0.0s] browse" in p for p in backend.prompts)  # numbered pseudo-chat messages
    zep = get_memory("zep").ingest(trajs, backend=backend)
    first = zep.edges_[0]
    assert first["sources"] == [trajs[0].events[4].event_id] and first["invalid_at"] is not None
    clear_stages()
    broken = Scripted({**replies, "extract_triples": "I could not find any triples."})
    assert get_memory("zep").ingest(trajs, backend=broken).parse_failures_ == 3  # one per session's batch
    assert broken.usage.total("parse_failures") == 3
    again = get_memory("zep").ingest(trajs, backend=broken)  # from the stage memo: the same count, no new call
    assert again.parse_failures_ == 3 and broken.usage.total("parse_failures") == 3


class Echo(PromptBackend):
    """A prompting backend whose 'model' replies, as JSON in the task's shape, what the offline algorithm answers:
    every prompt is rendered from the real inputs and every reply goes through the real decoder."""

    name = "echo"
    WRAP = {"extract_user_facts": "facts", "find_contradictions": "contradicted"}

    def __init__(self):
        super().__init__("echo-1")
        self.offline, self.rendered = get_backend("offline"), 0

    def _compute(self, task, inputs, params):
        done = self.offline._compute(task, inputs, params)
        if task not in MEMORY_TASKS:  # embeddings, episode narratives: answered as offline
            return done
        assert TASKS[task].render(**template_fields(task, inputs, params))
        self.rendered += 1
        key = RECORDS[task][0] if task in RECORDS else self.WRAP.get(task)
        reply = done.value if isinstance(done.value, str) else json.dumps({key: done.value} if key else done.value)
        return Computed(_decode(task, reply, inputs))


@pytest.mark.parametrize("name", [n for n in NEW if n not in ("mma", "visrag")])
def test_each_baseline_builds_the_same_memory_through_prompts_and_parsed_replies(name, tmp_path, offline):
    trajs = user(tmp_path)
    echo = Echo()
    through_prompts = get_memory(name).ingest(trajs, backend=echo)
    assert echo.rendered > 0 and getattr(through_prompts, "parse_failures_", 0) == 0
    assert through_prompts.memory_text() == get_memory(name).ingest(trajs, backend=offline).memory_text()


def test_mem0_history_in_a_file_keeps_every_ingest(tmp_path, offline):
    path = str(tmp_path / "history.db")
    first = get_memory("mem0", history_db=path).ingest(user(tmp_path), backend=offline)
    second = get_memory("mem0", history_db=path).ingest(user(tmp_path)[:1], backend=offline)
    assert (first.run_, second.run_) == (1, 2) and first.history() and len(second.history()) < len(first.history())
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM history").fetchone()[0] == len(first.history()) + len(second.history())
