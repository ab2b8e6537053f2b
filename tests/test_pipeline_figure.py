"""Figure 6 is read from the FileGramOS code: its nodes follow the Engram, the channels, the blocks and the knobs."""

import dataclasses

import polars as pl
import pytest

from filegram_kit.memory.filegramos import engram, retrieve
from filegram_kit.report.pipeline_figure import figure06_filegramos_pipeline, pipeline_frame


def nodes(frame: pl.DataFrame, kind: str) -> list[str]:
    return frame.filter(pl.col("kind") == kind)["node"].to_list()


def drawn_text(figure) -> str:
    return "\n".join(a.text or "" for a in figure.layout.annotations)


def test_every_knob_with_its_default_and_every_channel_is_a_node():
    frame = pipeline_frame()
    knobs = frame.filter(pl.col("kind") == "knob")
    assert knobs["node"].to_list() == [f.name for f in dataclasses.fields(retrieve.Knobs)]
    defaults = dict(zip(knobs["node"], knobs["detail"], strict=True))
    assert defaults["display_chars"].startswith("default 300") and defaults["edit_chains"].startswith("default False")
    assert nodes(frame, "channel") == list(retrieve.CHANNELS)
    assert nodes(frame, "block") == [f"{i}. {t}" for i, t in enumerate(retrieve.BLOCK_TITLES.values(), 1)]
    assert nodes(frame, "unit_field") == [f.name for f in dataclasses.fields(engram.Engram)]
    semantic = frame.filter(pl.col("parent") == "Engram.semantic")["node"].to_list()
    assert "chunks" in semantic and "language" in semantic


def test_channel_fields_come_from_their_dataclasses():
    from filegram_kit.memory.filegramos.channels import EpisodicChannel

    frame = pipeline_frame()
    episodic = frame.filter((pl.col("kind") == "channel_field") & (pl.col("parent") == "episodic"))
    assert episodic["node"].to_list() == [f.name for f in dataclasses.fields(EpisodicChannel)]
    clusters = episodic.filter(pl.col("node") == "episode_clusters")["detail"].item()
    assert "cluster label per episode" in clusters  # the field's inline comment


def test_edges_join_drawn_nodes():
    frame = pipeline_frame()
    named = set(frame.filter(pl.col("kind") != "edge")["node"])
    edges = frame.filter(pl.col("kind") == "edge")
    assert set(edges["node"]) <= named and set(edges["target"]) <= named
    assert {("Engram", c) for c in retrieve.CHANNELS} <= set(zip(edges["node"], edges["target"], strict=True))


def test_a_new_channel_changes_the_figure(monkeypatch):
    before = pipeline_frame()
    monkeypatch.setattr(retrieve, "CHANNELS", (*retrieve.CHANNELS, "temporal"))
    monkeypatch.setattr(retrieve, "BLOCK_TITLES", {**retrieve.BLOCK_TITLES, "temporal": "Temporal Rhythm"})
    result = figure06_filegramos_pipeline()
    after = result.data
    assert after.height > before.height
    assert nodes(after, "channel")[-1] == "temporal" and nodes(after, "block")[-1] == "4. Temporal Rhythm"
    edges = set(zip(after["node"], after["target"], strict=True))
    assert {("Engram", "temporal"), ("temporal", "4. Temporal Rhythm")} <= edges
    assert "Temporal Rhythm" in drawn_text(result.figure) and "temporal channel" in drawn_text(result.figure)


@dataclasses.dataclass(frozen=True)
class RerankingKnobs(retrieve.Knobs):
    rerank: bool = True  # re-rank retrieved chunks across channels


def test_a_new_knob_changes_the_figure(monkeypatch):
    assert "rerank" not in nodes(pipeline_frame(), "knob")
    monkeypatch.setattr(retrieve, "Knobs", RerankingKnobs)
    result = figure06_filegramos_pipeline()
    knob = result.data.filter((pl.col("kind") == "knob") & (pl.col("node") == "rerank"))
    assert knob["detail"].item() == "default True — re-rank retrieved chunks across channels"
    assert "rerank = True" in drawn_text(result.figure)


def test_same_code_same_frame():
    assert pipeline_frame().equals(pipeline_frame())


@pytest.mark.parametrize("kind", ["stage", "channel", "knob", "block"])
def test_every_node_names_its_source_symbol(kind):
    frame = pipeline_frame().filter(pl.col("kind") == kind)
    assert frame.height and all(s.startswith("filegram_kit.") for s in frame["source_symbol"])
