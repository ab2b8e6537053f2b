"""Result-backed artifacts checked against what they are computed from: the committed Tables 13 and 14
against their `_data.csv` digests, paper_vs_ours against the committed tables, and Figure 7 on a tiny
corpus against the harness's own answers for the same items."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from filegram_kit.bench.schema import SUB_TRACKS
from filegram_kit.bench.score import CHANNEL_COLUMNS, SUB_TASKS
from filegram_kit.report.paper_comparison import PAPER_TABLE13_FULL, PAPER_TABLE14, number

FIGURES = Path(__file__).resolve().parents[1] / "figures"


def _estimates(digest: pl.DataFrame) -> dict[str, dict[str, float]]:
    """Per variant: each Table 3 column as the mean over item seeds of points / items (stats.py's estimate)."""
    out: dict[str, dict[str, float]] = {}
    for variant in digest["variant"].unique().to_list():
        part = digest.filter(pl.col("variant") == variant)
        seeds = part["item_seed"].unique().to_list()
        cols: dict[str, float] = {}
        for sub, col in SUB_TASKS.items():
            per_seed = [part.filter((pl.col("item_seed") == s) & (pl.col("sub_track") == sub)) for s in seeds]
            vals = [p["points"].sum() / p["items"].sum() for p in per_seed if p["items"].sum()]
            if vals:
                cols[col] = sum(vals) / len(vals)
        for channel, col in CHANNEL_COLUMNS.items():
            per_seed = [part.filter((pl.col("item_seed") == s) & (pl.col("channel") == channel) & pl.col("mcq"))
                        for s in seeds]
            vals = [p["points"].sum() / p["items"].sum() for p in per_seed if p["items"].sum()]
            if vals:
                cols[col] = sum(vals) / len(vals)
        cols["Avg"] = sum(cols[c] for c in SUB_TASKS.values() if c in cols) / sum(c in cols for c in SUB_TASKS.values())
        out[variant] = cols
    return out


def test_committed_table13_is_its_digest():
    table = pl.read_csv(FIGURES / "table13_channel_ablation.csv")
    est = _estimates(pl.read_csv(FIGURES / "table13_channel_ablation_data.csv"))
    scores = table.filter(pl.col("row") == "score")
    assert scores.height == 4 and set(scores["configuration"]) == set(est)
    for row in scores.iter_rows(named=True):
        for column, value in est[row["configuration"]].items():
            assert number(row[column]) == pytest.approx(value, abs=0.051), (row["configuration"], column)
    full = est["FileGramOS (full)"]
    for row in table.filter(pl.col("row") != "score").iter_rows(named=True):
        assert number(row["Avg"]) == pytest.approx(est[row["configuration"]]["Avg"] - full["Avg"], abs=0.051)


def test_committed_table14_is_its_digest():
    table = pl.read_csv(FIGURES / "table14_sensitivity.csv")
    est = _estimates(pl.read_csv(FIGURES / "table14_sensitivity_data.csv"))
    assert set(table["configuration"]) == set(est) == set(PAPER_TABLE14)
    by = {r["configuration"]: r for r in table.iter_rows(named=True)}
    for name, row in by.items():
        assert number(row["Avg"]) == pytest.approx(est[name]["Avg"], abs=0.051)
        for track in ("T1", "T2", "T3"):
            subs = [SUB_TASKS[s] for s, (t, *_) in SUB_TRACKS.items() if t.startswith(track + "_")]
            assert row[track] == pytest.approx(sum(est[name][c] for c in subs) / len(subs), abs=0.051)
        if row["read against"] != "(reference)":
            ref = est[row["read against"]]["Avg"]
            assert number(row["change"]) == pytest.approx(est[name]["Avg"] - ref, abs=0.051)


def test_paper_vs_ours_quotes_the_committed_tables():
    vs = pl.read_csv(FIGURES / "paper_vs_ours.csv")
    assert set(vs["table"]) == {"Table 3", "Table 5", "Table 11", "Table 13", "Table 14"}
    assert (vs["ours backend"].is_in(["offline", "offline engine"])).all()
    t3 = pl.read_csv(FIGURES / "table03_main_results.csv")
    ours = {r["label"]: r for r in t3.filter(pl.col("source") == "ours (offline backend)").iter_rows(named=True)}
    paper = {r["label"]: r for r in t3.filter(pl.col("source").str.starts_with("paper")).iter_rows(named=True)}
    for row in vs.filter(pl.col("table") == "Table 3").iter_rows(named=True):
        assert row["ours"] == pytest.approx(ours[row["row"]][row["column"]])
        assert row["paper"] == pytest.approx(paper[row["row"]][row["column"]])
        assert row["ours - paper"] == pytest.approx(round(row["ours"] - row["paper"], 1))
        assert row["comparable"] == (row["column"] not in ("VisGrd", "Avg"))  # see paper_comparison's docstring
    t13 = vs.filter((pl.col("table") == "Table 13") & (pl.col("row") == "FileGramOS (full)"))
    assert dict(zip(t13["column"], t13["paper"], strict=True)) == PAPER_TABLE13_FULL


def test_figure07_rows_are_the_harness_answers(small_corpus, tmp_path):
    from filegram_kit.bench.generate import build_items
    from filegram_kit.bench.harness import evaluate
    from filegram_kit.report.qualitative import figure07_qualitative, first_items
    from filegram_kit.report.settings import FULL

    corpus = small_corpus
    settings = replace(FULL, methods=("no_context", "filegramos"))
    result = figure07_qualitative(corpus, settings=settings)
    frame = result.data
    items = first_items(build_items(corpus, seed=0))
    assert frame["question_id"].unique(maintain_order=True).to_list() == [i.question_id for i in items]
    assert frame["sub_track"].unique().sort().to_list() == sorted({i.sub_track for i in items})
    rows = evaluate(items, corpus, list(settings.methods), out=tmp_path / "run", workers=1, progress=False)
    for row in rows.iter_rows(named=True):
        mine = frame.filter((pl.col("question_id") == row["question_id"]) & (pl.col("method") == row["method"]))
        assert mine["answer"][0] == row["answer"] and mine["is_correct"][0] == row["is_correct"]
        assert mine["context_tokens"][0] == row["context_tokens"]


def test_committed_table11_offline_row_is_the_full_model_of_table13():
    """Table 11's offline row and Table 13's full-model row are the same rows read twice."""
    t11 = pl.read_csv(FIGURES / "table11_cross_backbone.csv")
    t13 = pl.read_csv(FIGURES / "table13_channel_ablation.csv")
    offline = t11.filter(pl.col("QA backbone") == "offline (all items)").row(0, named=True)
    full = t13.filter((pl.col("configuration") == "FileGramOS (full)") & (pl.col("row") == "score")).row(0, named=True)
    assert [offline[c] for c in ("Proc", "Sem", "Epi", "Avg")] == [full[c] for c in ("Proc", "Sem", "Epi", "Avg")]
    both = pl.col("channel").is_in(["procedural", "semantic"])
    digest = pl.read_csv(FIGURES / "table13_channel_ablation_data.csv").filter(
        (pl.col("variant") == "FileGramOS (full)") & pl.col("mcq") & both)
    assert offline["Proc+Sem items"] == pytest.approx(digest["points"].sum() / digest["items"].sum(), abs=0.051)
    assert t11.filter(pl.col("QA backbone").str.starts_with("paper: ")).height == 3
