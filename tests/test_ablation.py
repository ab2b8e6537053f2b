"""FileGramOS ablations (Tables 13, 14): variants share one ingest, yet answer exactly as separate runs would;
the tables' numbers are the variants' scores and paired changes; the digest recomputes them."""

from __future__ import annotations

import polars as pl
import pytest

from filegram_kit.bench import ablation
from filegram_kit.bench.generate import build_items
from filegram_kit.bench.harness import evaluate, input_set
from filegram_kit.bench.score import row_points, table3
from filegram_kit.llm import get_backend
from filegram_kit.memory import get_memory
from filegram_kit.memory.filegramos import FileGramOS

KEEP = ["question_id", "answer", "score", "context_tokens", "memory_tokens"]


@pytest.fixture(scope="module")
def items(small_corpus):
    return build_items(small_corpus, seed=0)


def test_retrieval_variants_share_one_ingest_and_answer_as_separate_runs(small_corpus, items, tmp_path, monkeypatch):
    ingests = []
    original = FileGramOS.ingest

    def counting(self, trajs, *, backend):
        ingests.append(tuple(t.id for t in trajs))
        return original(self, trajs, backend=backend)

    monkeypatch.setattr(FileGramOS, "ingest", counting)
    lean = {"channels": ("procedural",), "display_chars": 800}
    both = evaluate(items, small_corpus, [("filegramos", {}), ("filegramos", lean)], out=tmp_path / "both", workers=1,
                    progress=False)
    sets = len({input_set(i) for i in items})
    assert len(ingests) == sets  # one ingest per input set for both variants
    alone = evaluate(items, small_corpus, [("filegramos", lean)], out=tmp_path / "alone", workers=1, progress=False)
    assert len(ingests) == 2 * sets
    lean_hash = alone["params_hash"][0]
    shared = both.filter(pl.col("params_hash") == lean_hash).select(KEEP).sort("question_id")
    assert shared.equals(alone.select(KEEP).sort("question_id"))
    default = both.filter(pl.col("params_hash") != lean_hash)
    assert default.height == shared.height and not default["context_tokens"].equals(shared["context_tokens"])


def test_adopt_refuses_another_ingest_setting(small_corpus):
    from filegram_kit.traces.load import load_trajectories

    trajs = [t for t in load_trajectories(small_corpus, progress=False) if t.profile_id.startswith("p1")]
    backend = get_backend("offline")
    memory = get_memory("filegramos").ingest(trajs, backend=backend)
    assert get_memory("filegramos", top_chunks=1).adopt(memory).retrieve("folders", backend=backend).text
    with pytest.raises(ValueError, match="same ingest-time params"):
        get_memory("filegramos", tau=2.0).adopt(memory)
    with pytest.raises(ValueError, match="same ingest-time params"):
        get_memory("naive_rag").adopt(memory)
    with pytest.raises(RuntimeError, match="before retrieve"):
        get_memory("filegramos").adopt(get_memory("filegramos"))


def test_variants_follow_the_papers_reference_rules():
    from filegram_kit.memory.filegramos.retrieve import CHANNELS, Knobs

    table13 = ablation.channel_ablation()
    assert [v.reference for v in table13] == [None] + [table13[0].label] * len(CHANNELS)
    assert [set(CHANNELS) - set(v.knobs["channels"]) for v in table13[1:]] == [{c} for c in CHANNELS]
    table14 = ablation.sensitivity()
    by_label = {v.label: v for v in table14}
    retriever = [v for v in table14 if v.group == "retriever"]
    assert [v.knobs["display_chars"] for v in retriever] == list(ablation.RETRIEVER_DISPLAY)
    assert retriever[0].knobs["display_chars"] == Knobs().display_chars  # the default is the reference
    for v in table14:
        if v.group == "context":
            assert by_label[v.reference].knobs == {"display_chars": 800}
            assert v.knobs["display_chars"] == 800 and len(v.knobs) == 2
    assert len({v.params_hash for v in table14}) == len(table14)  # every row is a distinct setting
    assert table13[0].params_hash == retriever[0].params_hash  # full model = the 300-char default


def test_tables_are_the_variants_scores_and_paired_changes(small_corpus, items, tmp_path):
    variants = ablation.channel_ablation()
    rows = evaluate(items, small_corpus, ablation.as_methods(variants), out=tmp_path / "run", workers=1, progress=False)
    table = ablation.ablation_table(rows, variants, n_boot=200)
    scores = table.filter(pl.col("row") == "score")
    assert scores["configuration"].to_list() == [v.label for v in variants]
    for v in variants:
        expected = table3(rows.filter(pl.col("params_hash") == v.params_hash)).row(0, named=True)
        got = scores.filter(pl.col("configuration") == v.label).row(0, named=True)
        for column in ("AttrRec", "BehavFP", "Proc", "Avg"):
            if expected[column] is not None:
                assert float(got[column].split(" ")[0]) == pytest.approx(expected[column], abs=0.051)
    full = table3(rows.filter(pl.col("params_hash") == variants[0].params_hash)).row(0, named=True)
    for v in variants[1:]:
        mine = table3(rows.filter(pl.col("params_hash") == v.params_hash)).row(0, named=True)
        change = table.filter((pl.col("configuration") == v.label) & (pl.col("row") != "score")).row(0, named=True)
        assert float(change["Avg"].split(" ")[0]) == pytest.approx(mine["Avg"] - full["Avg"], abs=0.11)


def test_digest_recomputes_the_scores(small_corpus, items, tmp_path):
    from filegram_kit.report.ablation_tables import score_digest

    variants = ablation.sensitivity(display=(300, 800), context=(("Files/task 3 -> 1", {"files_per_task": 1}),))
    rows = evaluate(items, small_corpus, ablation.as_methods(variants), out=tmp_path / "run", workers=1, progress=False)
    digest = score_digest(rows, variants)
    assert set(digest["variant"]) == {v.label for v in variants}
    assert digest["items"].sum() == rows.height
    for v in variants:
        part = digest.filter(pl.col("variant") == v.label)
        points = row_points(rows.filter(pl.col("params_hash") == v.params_hash))["points"]
        assert part["points"].sum() == pytest.approx(points.sum())
    table = ablation.sensitivity_table(rows, variants, n_boot=100)
    assert table["read against"].to_list() == ["(reference)", variants[0].label, variants[1].label]
    assert table["change"][0] == "–" and table["n"].to_list() == [len(items)] * 3


def test_a_sweep_reads_its_values_in_natural_order_whatever_the_base(small_corpus, items, tmp_path):
    from filegram_kit.report.ablation_views import sweep_figure

    sweeps = {"display_chars": ablation.RETRIEVER_DISPLAY, "files_per_task": (3, 2, 5)}
    variants = ablation.sweep({"display_chars": 1000, "files_per_task": 5}, sweeps)  # the bases come first
    assert [v.label for v in variants][:2] == ["display_chars=1000", "display_chars=300"]
    rows = evaluate(items, small_corpus, ablation.as_methods(variants), out=tmp_path / "run", workers=1, limit=2,
                    progress=False)
    frame = ablation.sweep_frame(rows, variants, n_boot=50)
    assert frame["knob"].unique(maintain_order=True).to_list() == list(sweeps)
    assert frame.filter(pl.col("knob") == "display_chars")["value"].to_list() == ["300", "500", "800", "1000"]
    assert frame.filter(pl.col("knob") == "files_per_task")["value"].to_list() == ["2", "3", "5"]
    figure = sweep_figure(frame.sort("knob", "value")).figure  # text order in: the figure orders its axes itself
    assert list(figure.layout.xaxis.categoryarray) == ["300", "500", "800", "1000"]
    assert figure.layout.width is None  # fills the cell it is shown in
