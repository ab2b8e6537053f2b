"""Corpus-backed artifacts (Table 5, Figure 3): their numbers against counts taken straight from events.json.

The full 640-trajectory corpus is never built here: a 2-persona x 3-task corpus is, and the committed
figures/ outputs of the full corpus are checked for consistency instead.
"""

import json
import re
import struct
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from filegram_kit.engine import PAPER_TABLE5
from filegram_kit.report import ARTIFACTS, corpus_source, distribution, export, reproduce
from filegram_kit.report.figures import figure03_data_distribution
from filegram_kit.report.tables import table05_event_counts
from filegram_kit.traces.schema import EVENT_CATEGORY, EVENT_TYPES, METADATA_EVENT_TYPES, RETAINED_EVENT_TYPES
from filegram_kit.traces.tasks import get_task
from filegram_kit.util import code_closure

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIGURES = ROOT / "figures"
PROFILES, TASKS = ["p1", "p3"], ["T-01", "T-05", "T-12"]  # understand, organize, iterate


def raw_runs(corpus: Path) -> dict[str, list[dict]]:
    """trajectory folder name -> its raw events, read with json alone."""
    return {d.name: json.loads((d / "events.json").read_text(encoding="utf-8"))
            for d in sorted((corpus / "signal").iterdir()) if (d / "events.json").is_file()}


def test_tiny_corpus_has_every_trajectory(small_corpus):
    assert len(raw_runs(small_corpus)) == len(PROFILES) * len(TASKS)


def test_table05_counts_equal_events_json(small_corpus):
    runs = raw_runs(small_corpus)
    counts = Counter(e["event_type"] for events in runs.values() for e in events)
    table = table05_event_counts(small_corpus)
    per_type = table.filter(pl.col("category") != "total")
    assert per_type["event_type"].to_list() == list(RETAINED_EVENT_TYPES + METADATA_EVENT_TYPES)
    assert dict(per_type.select("event_type", "ours").iter_rows()) == {t: counts.get(t, 0) for t in EVENT_TYPES}
    assert per_type["ours_per_640"].to_list() == [round(counts.get(t, 0) * 640 / len(runs), 1)
                                                  for t in per_type["event_type"]]
    assert dict(per_type.select("event_type", "paper").iter_rows()) == PAPER_TABLE5
    totals = dict(table.filter(pl.col("category") == "total").select("event_type", "ours").iter_rows())
    meta = sum(counts[t] for t in METADATA_EVENT_TYPES)
    assert totals == {"all retained": sum(counts.values()) - meta, "all metadata": meta}
    share = table.filter(pl.col("event_type") == "all metadata")["share"].item()
    assert share == pytest.approx(meta / sum(counts.values()), abs=1e-4)


def _bin(n: int) -> str:
    lo = n // distribution.BIN_WIDTH * distribution.BIN_WIDTH
    return f"{lo}-{lo + distribution.BIN_WIDTH - 1}"


def test_figure03_numbers_equal_events_json(small_corpus):
    runs = raw_runs(small_corpus)
    task_of = {name: get_task(name.rsplit("_", 1)[1]).type for name in runs}
    by_type, files, per_traj = Counter(), set(), Counter()
    for name, events in runs.items():
        for e in events:
            if e["event_type"] in RETAINED_EVENT_TYPES:
                by_type[task_of[name], EVENT_CATEGORY[e["event_type"]]] += 1
                per_traj[name] += 1
            if e["event_type"] == "file_write" and e["operation"] == "create":
                files.add((name, e["file_path"]))
            if e["event_type"] == "file_copy":
                files.add((name, e["dest_path"]))
    data = figure03_data_distribution(small_corpus).data

    def panel(name):
        return {(x, s): v for x, s, v in distribution.panel(data, name).iter_rows()}

    assert distribution.totals(data) == {"trajectories": len(runs), "output_files": len(files),
                                         "atomic_actions": sum(per_traj.values())}
    assert panel("actions_by_task_type") == dict(by_type)
    extensions = Counter(Path(p).suffix.lstrip(".").lower() or "(none)" for _, p in files)
    assert panel("output_files_by_type") == {(ext, "created"): n for ext, n in extensions.items()}
    hist = panel("actions_per_trajectory")
    assert sum(hist.values()) == len(runs)
    assert {k: v for k, v in hist.items() if v} == dict(Counter((_bin(per_traj[n]), "trajectories") for n in runs))
    assert panel("trajectories_by_task_type") == dict(Counter((t, "trajectories") for t in task_of.values()))


def test_figure03_draws_its_numbers(small_corpus):
    result = figure03_data_distribution(small_corpus)
    total = distribution.totals(result.data)
    assert f"{total['trajectories']} trajectories" in result.figure.layout.title.text
    drawn = sum(sum(t.y) for t in result.figure.data if t.showlegend is not False)  # the stacked category bars
    assert drawn == total["atomic_actions"]


def test_reproduce_writes_offline_html_and_png_for_figures(small_corpus, tmp_path):
    try:
        export.find_browser()
    except export.BrowserNotFoundError as exc:
        pytest.skip(f"PNG export needs a browser: {exc}")
    written = reproduce(tmp_path, only=["figure03_data_distribution"], corpus=small_corpus, progress=False)
    assert sorted(p.name for p in written) == [f"figure03_data_distribution.{e}" for e in ("csv", "html", "md", "png")]
    html = (tmp_path / "figure03_data_distribution.html").read_text(encoding="utf-8")
    sources = re.findall(r"<script[^>]*src=\"([^\"]+)\"", html)
    assert sources == [export.PLOTLY_JS]  # a local file beside the page: opens offline, no CDN
    assert "plotly.js v" in (tmp_path / export.PLOTLY_JS).read_text(encoding="utf-8")[:200]
    png = (tmp_path / "figure03_data_distribution.png").read_bytes()  # (skipped above when no browser)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (1200 * export.PNG_SCALE, 820 * export.PNG_SCALE)
    assert "![" in (tmp_path / "figure03_data_distribution.md").read_text(encoding="utf-8")


def test_a_png_session_draws_every_figure_in_one_browser_with_the_same_bytes(monkeypatch):
    try:
        export.find_browser()
    except export.BrowserNotFoundError as exc:
        pytest.skip(f"PNG export needs a browser: {exc}")
    import kaleido
    import plotly.graph_objects as go

    figures = [go.Figure(go.Bar(x=["a", "b"], y=[n, 2]), layout={"title": f"figure {n}"}) for n in range(3)]
    alone = [export.figure_png(fig) for fig in figures]
    starts, stops = [], []
    start, stop = kaleido.start_sync_server, kaleido.stop_sync_server
    monkeypatch.setattr(kaleido, "start_sync_server", lambda *a, **k: (starts.append(1), start(*a, **k))[1])
    monkeypatch.setattr(kaleido, "stop_sync_server", lambda *a, **k: (stops.append(1), stop(*a, **k))[1])
    with export.png_session():
        shared = [export.figure_png(fig) for fig in figures]
        with export.png_session():  # nested (a notebook cell inside a run): still the one browser
            shared.append(export.figure_png(figures[0]))
    assert shared == [*alone, alone[0]]
    assert (len(starts), len(stops)) == (1, 1)
    with export.png_session():  # a session that draws nothing starts no browser
        pass
    assert len(starts) == 1 and export.figure_png(figures[1]) == alone[1]  # closed: back to one browser a figure


def test_missing_browser_error_names_the_fix(monkeypatch):
    from choreographer.browsers.chromium import Chromium

    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setattr(export.shutil, "which", lambda name: None)
    monkeypatch.setattr(Chromium, "find_browser", classmethod(lambda cls, **kw: None))
    with pytest.raises(export.BrowserNotFoundError, match=r"make setup.*apt-get install -y chromium"):
        export.find_browser()


def test_browser_path_must_exist(monkeypatch, tmp_path):
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-such-chrome"))
    with pytest.raises(export.BrowserNotFoundError, match="no-such-chrome"):
        export.find_browser()


def test_default_corpus_is_rebuilt_when_the_engine_changes(monkeypatch, tmp_path):
    out = tmp_path / "corpus"
    monkeypatch.setenv(corpus_source.ENV_VAR, str(out))
    built = []

    def fake_build(path, **kwargs):
        built.append(path)
        (path / "signal").mkdir(parents=True, exist_ok=True)
        (path / "signal" / f"run{len(built)}").mkdir()

    monkeypatch.setattr(corpus_source, "build_corpus", fake_build)
    monkeypatch.setattr(corpus_source, "source_hash", lambda: "engine-a")
    assert corpus_source.default_corpus(progress=False) == out
    corpus_source.default_corpus(progress=False)  # same engine: resumed, nothing dropped
    assert sorted(p.name for p in (out / "signal").iterdir()) == ["run1", "run2"]
    monkeypatch.setattr(corpus_source, "source_hash", lambda: "engine-b")
    corpus_source.default_corpus(progress=False)
    assert sorted(p.name for p in (out / "signal").iterdir()) == ["run3"]
    assert (out / corpus_source.STAMP).read_text().strip() == "engine-b"


def test_source_hash_covers_the_engine():
    from filegram_kit.engine import corpus as engine_corpus

    files = {p.relative_to(code_closure.PACKAGE).as_posix() for pattern in engine_corpus.FINGERPRINT_SOURCES
             for p in code_closure.PACKAGE.glob(pattern)}
    assert {"engine/corpus.py", "engine/recorder.py", "workspace/__init__.py", "data/profiles.json"} <= files


# -- the committed outputs of the full corpus ---------------------------------------------------------


def test_committed_table05_is_well_formed():
    table = pl.read_csv(FIGURES / "table05_event_counts.csv")
    per_type = table.filter(pl.col("category") != "total")
    assert sorted(per_type["event_type"]) == sorted(EVENT_TYPES)
    n = per_type.filter(pl.col("event_type") == "session_start")["ours"].item()  # one per trajectory
    assert 600 <= n <= 640
    expected = [round(v * 640 / n, 1) for v in per_type["ours"]]
    assert per_type["ours_per_640"].to_list() == pytest.approx(expected, abs=0.051)
    assert dict(per_type.select("event_type", "paper").iter_rows()) == PAPER_TABLE5
    assert per_type.select((pl.col("retained") == pl.col("event_type").is_in(RETAINED_EVENT_TYPES)).all()).item()
    totals = dict(table.filter(pl.col("category") == "total").select("event_type", "ours").iter_rows())
    retained = per_type.filter(pl.col("retained"))["ours"].sum()
    assert totals == {"all retained": retained, "all metadata": per_type["ours"].sum() - retained}
    share = table.filter(pl.col("event_type") == "all metadata")["share"].item()
    assert share == pytest.approx(totals["all metadata"] / per_type["ours"].sum(), abs=1e-4)


def test_committed_figure03_agrees_with_table05():
    data = pl.read_csv(FIGURES / "figure03_data_distribution.csv", schema=distribution._SCHEMA)
    table = pl.read_csv(FIGURES / "table05_event_counts.csv")
    ours = dict(table.select("event_type", "ours").iter_rows())
    total = distribution.totals(data)
    assert total["trajectories"] == ours["session_start"]
    assert total["atomic_actions"] == ours["all retained"]
    assert distribution.panel(data, "actions_by_task_type")["value"].sum() == ours["all retained"]
    assert distribution.panel(data, "actions_per_trajectory")["value"].sum() == ours["session_start"]
    assert distribution.panel(data, "output_files_by_type")["value"].sum() == total["output_files"]


@pytest.mark.parametrize("name", [n for n, a in ARTIFACTS.items() if a.corpus])
def test_committed_corpus_artifacts_are_present(name):
    suffixes = ("csv", "md", "html", "png") if ARTIFACTS[name].figure else ("csv", "md")
    missing = [f"{name}.{s}" for s in suffixes if not (FIGURES / f"{name}.{s}").is_file()]
    assert not missing, f"run `make reproduce` and commit figures/: {missing}"


def test_docs_prose_quotes_the_committed_table5_share():
    """The engine page's metadata share (prose, beside the generated Table 5 it quotes) is the committed number."""
    rows = {r["event_type"]: r for r in pl.read_csv(FIGURES / "table05_event_counts.csv").iter_rows(named=True)}
    page = (DOCS / "engine.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/results.md:table05_event_counts"' in page
    assert f"simulation-metadata share is {rows['all metadata']['share']:.1%}" in page


def test_cli_reproduces_from_a_given_corpus(small_corpus, tmp_path):
    from filegram_kit.cli import main

    assert main(["reproduce", "--out", str(tmp_path), "--only", "table05_event_counts",
                 "figure03_data_distribution", "--corpus", str(small_corpus), "--no-images"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "figure03_data_distribution.html" in names and "figure03_data_distribution.png" not in names
    frame = pl.read_csv(tmp_path / "table05_event_counts.csv")
    counts = Counter(e["event_type"] for d in (small_corpus / "signal").iterdir()
                     for e in json.loads((d / "events.json").read_text()))
    assert frame.filter(pl.col("event_type") == "file_read")["ours"][0] == counts["file_read"]


def test_docs_prose_quotes_the_committed_filegramos_numbers():
    """The FileGramOS page's AUCs (prose) are what `filegram reproduce` committed; its accuracy row is quoted."""
    page = (DOCS / "filegramos.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/results.md:filegramos_recovery"' in page
    drift = {r["score"]: r for r in pl.read_csv(FIGURES / "filegramos_drift.csv").iter_rows(named=True)}
    assert f"**AUC {drift['deviation']['auc']:.3f}**" in page
    assert f"{drift['task_adjusted_deviation']['auc']:.3f} after removing" in page


def test_filegramos_tables_on_the_tiny_corpus(small_corpus):
    from filegram_kit.report.memory_tables import filegramos_drift, filegramos_recovery, filegramos_tokens

    recovery = filegramos_recovery(corpus=small_corpus)
    assert recovery["personas"].to_list() == [len(PROFILES)] * 6 + [6 * len(PROFILES)]
    assert recovery["accuracy"][-1] == round(recovery["recovered"][-1] / recovery["personas"][-1], 3)
    drift = filegramos_drift(corpus=small_corpus)
    assert drift["score"].to_list() == ["deviation", "task_adjusted_deviation"]
    assert (drift["perturbed"] + drift["normal"]).to_list() == [len(PROFILES) * len(TASKS)] * 2
    tokens = filegramos_tokens(corpus=small_corpus)
    stored, query = tokens["ours_mean"].to_list()
    assert stored > query > 0


def test_docs_quote_generated_tables_by_existing_sections():
    """Every `--8<--` quote in docs/ names a section docs/results.md has (a renamed step would leave a hole)."""
    sections = set(re.findall(r"\[start:(\w+)\]", (DOCS / "results.md").read_text(encoding="utf-8")))
    quoted = {(page.name, name) for page in DOCS.glob("*.md")
              for name in re.findall(r'^--8<-- "docs/results\.md:(\w+)"', page.read_text(encoding="utf-8"), re.M)}
    assert len(quoted) >= 8
    assert not [q for q in quoted if q[1] not in sections], "quotes of steps the results page lacks"
