"""Notebook 05's views: item cards, method comparison, Table 3 charts with chance, knows-vs-acts."""

from __future__ import annotations

import polars as pl
import pytest

from filegram_kit.bench.results import RESULT_SCHEMA
from filegram_kit.bench.schema import Item
from filegram_kit.bench.score import table3
from filegram_kit.llm import get_backend
from filegram_kit.report import bench_views as bv
from tests.builders import browse, delete, edit, make, mkdir, read, search, write

BACKEND = get_backend("offline")
PROSE = ("The quarterly budget review covers revenue, staffing and the vendor contracts. " * 10).strip()


def item(qid, sub_track, choices=("x", "y", "z"), correct="A", *, channel="procedural", inputs=("p1_T-01",),
         metadata=None, question="Which one?"):
    track = {"anomaly_detection": "T3_detection", "trace_disentanglement": "T2_reasoning"}.get(sub_track,
                                                                                              "T1_understanding")
    return Item(qid, track, sub_track, "c", channel, "p1", tuple(inputs), question, tuple(choices), correct,
                dict(metadata or {}))


class Store:
    """What compare_methods / knows_vs_acts need of a TrajectoryStore: `.get` and `.anonymous`."""

    def __init__(self, trajs):
        self.trajs = {t.id: t for t in trajs}

    def get(self, tid):
        return self.trajs[tid]

    def anonymous(self, tid):
        from filegram_kit.bench.inputs import anonymise

        return anonymise(self.trajs[tid])


# -- small helpers ------------------------------------------------------------------------------------------


def test_available_backends_follow_the_keys_in_the_environment():
    assert bv.available_backends({}) == ["offline"]
    assert bv.available_backends({"COHERE_API_KEY": "k"}) == ["offline"]  # embeddings only: no reader
    assert bv.available_backends({"GOOGLE_API_KEY": "k"}) == ["offline", "gemini"]
    assert bv.available_backends({"GEMINI_API_KEY": "k", "OPENAI_BASE_URL": "http://localhost:8000/v1"}) == [
        "offline", "gemini", "openai_compat"]


def test_results_folder_depends_on_the_items(tmp_path):
    a, b = [item("a", "attribute_recognition")], [item("b", "attribute_recognition")]
    assert bv.results_folder(tmp_path, a) == bv.results_folder(tmp_path, list(a))
    assert bv.results_folder(tmp_path, a) != bv.results_folder(tmp_path, b)
    assert bv.results_folder(tmp_path, a).parent == tmp_path


def test_shown_cuts_long_text_and_says_how_much():
    assert bv.shown("short", limit=10) == "short"
    out = bv.shown("a" * 25, limit=10)
    assert out.startswith("a" * 10 + "\n") and "a" * 11 not in out and "15 more" in out


def test_item_markdown_marks_the_answer_and_names_inputs_as_the_memory_sees_them():
    text = bv.item_markdown(item("q1", "attribute_recognition", ("alpha", "beta", "gamma"), "B",
                                 inputs=("p1_methodical_T-05", "p1_methodical_T-12")))
    assert "✅ **B.** beta" in text and "✅ **A." not in text and "Correct: **B** (chance 33%)" in text
    assert "`p1_methodical_T-05` → `T-05`" in text and "anonymised" in text
    mixed = bv.item_markdown(item("q2", "trace_disentanglement", inputs=("p1_T-01", "p2_T-02"),
                                  metadata={"interleave": ["p1_T-01", "p2_T-02"]}))
    assert "one interleaved session `T-01`" in mixed
    free = bv.item_markdown(item("q3", "profile_reconstruction", (), "prefers deep folders"))
    assert "reference" in free and "prefers deep folders" in free and "✅" not in free


def test_option_task_and_drift_rank():
    assert bv.option_task("The session on T-16 (understand: triage)") == "T-16"
    assert bv.option_task("How the user organises files") is None
    drift = pl.DataFrame({"task_id": ["T-01", "T-02", "T-03", "T-04"], "deviation": [1.0, 3.0, 2.0, 3.0]})
    assert [bv.drift_rank(drift, t) for t in ("T-02", "T-04", "T-03", "T-01")] == [1, 2, 3, 4]  # ties: by task id
    with pytest.raises(KeyError, match="T-09"):
        bv.drift_rank(drift, "T-09")


def test_spread_keeps_the_ends_and_spaces_the_rest():
    xs = list(range(10))
    assert bv.spread(xs, 3) == [0, 4, 9]  # 4.5 rounds to even
    assert bv.spread(xs, 20) == xs and bv.spread(xs, 1) == [0]


# -- Table 3 as charts --------------------------------------------------------------------------------------


def test_chance_per_sub_task_is_the_mean_of_one_over_the_options():
    items = [item("a1", "attribute_recognition", ("x", "y", "z")),
             item("a2", "attribute_recognition", ("w", "x", "y", "z")),
             item("d1", "anomaly_detection", tuple("abcde"), channel="episodic"),
             item("p1", "profile_reconstruction", (), "reference text")]
    chance = {r["abbr"]: r for r in bv.subtask_chance(items).iter_rows(named=True)}
    assert list(chance) == ["AttrRec", "BehavFP", "ProfRec", "BehavInf", "TraceDis", "AnomDet", "ShiftAna",
                            "FileGrd", "VisGrd"]
    assert chance["AttrRec"]["chance"] == pytest.approx(100 * (1 / 3 + 1 / 4) / 2)
    assert chance["AttrRec"]["items"] == 2 and chance["AnomDet"]["chance"] == pytest.approx(20.0)
    assert chance["ProfRec"]["chance"] is None and chance["ProfRec"]["items"] == 1  # free-form: judged, no chance
    assert chance["BehavFP"]["items"] == 0 and chance["BehavFP"]["chance"] is None
    assert chance["VisGrd"]["items"] == 0 and chance["VisGrd"]["chance"] is None  # no Track 4 items given


def results_rows():
    """Two methods x three items: filegramos answers both MCQs right, no_context one; free-form Likert 4 / 2."""
    rows = []
    plan = {"filegramos": (1.0, 1.0, 75.0), "no_context": (0.0, 1.0, 25.0)}
    for method, (a, d, p) in plan.items():
        for qid, sub, channel, mcq, score in [("a1", "attribute_recognition", "procedural", True, a),
                                              ("d1", "anomaly_detection", "episodic", True, d),
                                              ("p1", "profile_reconstruction", "semantic", False, p)]:
            row = dict.fromkeys(RESULT_SCHEMA)
            row.update(method=method, params_hash="h", backend="offline", model="offline-v1", question_id=qid,
                       seed=0, sub_track=sub, channel=channel, mcq=mcq, input_key=qid, score=score,
                       context_tokens=10, memory_tokens=100)
            rows.append(row)
    return pl.DataFrame(rows, schema=RESULT_SCHEMA)


def test_channel_bars_have_one_trace_per_method_with_the_table_values():
    table = table3(results_rows())
    out = bv.channel_bars(table)
    assert [t.name for t in out.figure.data] == table["label"].to_list()
    fgos = next(t for t in out.figure.data if t.name == "FileGramOS")
    assert list(fgos.x) == ["Proc", "Sem", "Epi"] and list(fgos.y) == [100.0, None, 100.0]  # ProfRec is no MCQ
    nc = out.data.filter((pl.col("method") == "no_context") & (pl.col("column") == "Proc"))
    assert nc["value"][0] == 0.0
    colors = {t.name: t.marker.color for t in out.figure.data}
    assert len(set(colors.values())) == 2


def test_subtask_bars_mark_chance_from_the_answered_items():
    items = [item("a1", "attribute_recognition", ("x", "y", "z", "w")),
             item("d1", "anomaly_detection", tuple("abcde"), channel="episodic"),
             item("p1", "profile_reconstruction", (), "ref", channel="semantic")]
    table = table3(results_rows())
    out = bv.subtask_bars(table, items)
    bars = [t for t in out.figure.data if t.type == "bar"]
    assert [t.name for t in bars] == table["label"].to_list()  # one bar trace per method
    chance = next(t for t in out.figure.data if t.name == "chance")
    marks = dict(zip(chance.x, chance.y, strict=True))
    assert marks["AttrRec"] == pytest.approx(25.0) and marks["AnomDet"] == pytest.approx(20.0)
    assert marks["ProfRec"] is None
    fgos = next(dict(zip(t.x, t.y, strict=True)) for t in bars if t.name == "FileGramOS")
    assert fgos["AttrRec"] == 100.0 and fgos["ProfRec"] == 75.0 and fgos["BehavFP"] is None
    row = out.data.filter((pl.col("method") == "no_context") & (pl.col("column") == "AnomDet"))
    assert row["value"][0] == 100.0 and row["chance"][0] == pytest.approx(20.0)


# -- one item through the methods, and knows vs acts ------------------------------------------------------------


def session(root, tid, k, extra=()):
    """A small, slightly varied session: look around, read, write a report, refine it."""
    task = tid.rsplit("_", 1)[1]
    specs = [browse(), read("notes/plan.md"), *[read(f"notes/n{j}.md") for j in range(k % 3)], search("revenue"),
             mkdir(1, "out"), write(f"out/{task.lower()}_report.md", f"# Report {task}\n\n{PROSE}\n"),
             edit(f"out/{task.lower()}_report.md", 2 + k % 2, 1), *extra]
    return make(root, tid, specs)


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """Five ordinary sessions of one user and a sixth that does everything else: many folders, deletes,
    data files and images. The sixth is the planted outlier."""
    root = tmp_path_factory.mktemp("planted")
    trajs = [session(root, f"u_T-0{i}", i) for i in range(1, 6)]
    odd = [mkdir(3, f"a/b/c{j}") for j in range(6)] + [delete(f"old{j}.tmp") for j in range(6)]
    odd += [write(f"a/b/data{j}.csv", "x,y\n1,2\n") for j in range(5)] + [write(f"a/img{j}.png", length=5000)
                                                                          for j in range(5)]
    trajs.append(session(root, "u_T-06", 0, odd))
    return Store(trajs)


def anomaly(qid, correct_task, order, store_ids):
    choices = tuple(f"The session on {t} (a task)" for t in order)
    return item(qid, "anomaly_detection", choices, "ABCDEF"[order.index(correct_task)], channel="episodic",
                inputs=store_ids, metadata={"answer_trajectory": f"u_{correct_task}"},
                question="All but one of these 6 work sessions were done by the same user. Which session deviates?")


def test_knows_vs_acts_ranks_a_planted_outlier_first(planted):
    ids = tuple(sorted(planted.trajs))
    items = [anomaly("d1", "T-06", ["T-03", "T-01", "T-06", "T-02", "T-05", "T-04"], ids),
             item("a1", "attribute_recognition", inputs=ids)]  # not Anomaly Detection: ignored
    frame = bv.knows_vs_acts(items, planted, BACKEND, n=5)
    assert frame["question_id"].to_list() == ["d1"]
    row = frame.row(0, named=True)
    assert row["correct_session"] == "T-06" and row["sessions"] == 6
    assert row["drift_rank"] == 1 and row["drift_top"] == "T-06" and row["drift_pick"] == "C" == row["correct"]
    assert row["reader_pick"] in "ABCDEF" and row["reader_correct"] == (row["reader_pick"] == "C")
    assert row["reader_session"] == ["T-03", "T-01", "T-06", "T-02", "T-05", "T-04"]["ABCDEF".index(row["reader_pick"])]
    summary = bv.knows_vs_acts_summary(frame)
    assert summary["items"] == 1 and summary["knows"] == 1
    assert summary["knows_not_acts"] == 1 - summary["acts"]


def test_compare_methods_answers_each_method_from_its_own_context_and_keeps_failures(planted):
    ids = tuple(sorted(planted.trajs))[:3]
    question = "How does this user write the quarterly budget report?"
    q = item("a1", "attribute_recognition", ("writes budget report prose", "draws charts", "renames files"), "A",
             inputs=ids, question=question)
    out = bv.compare_methods(q, planted, ["no_context", "full_context", "no_such_method"], backend=BACKEND)
    assert out.frame["method"].to_list() == ["no_context", "full_context", "no_such_method"]
    assert set(out.contexts) == {"no_context", "full_context"}  # the failing method has no context
    none, full, bad = out.frame.iter_rows(named=True)
    assert none["context_tokens"] == 0 and out.contexts["no_context"].text == ""
    assert full["context_tokens"] == out.contexts["full_context"].tokens > 0 and "Report T-01" in \
        out.contexts["full_context"].text  # the memory saw the sessions under their task names
    assert "u_T-01" not in out.contexts["full_context"].text
    assert full["answer"] in "ABC" and full["chosen"] == q.choices["ABC".index(full["answer"])]
    assert full["is_correct"] == (full["answer"] == "A") and full["score"] == float(full["is_correct"])
    assert bad["error"] and "no_such_method" in bad["error"] and bad["answer"] is None
