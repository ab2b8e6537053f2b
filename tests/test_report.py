from pathlib import Path

import polars as pl
import pytest

from filegram_kit.report import ARTIFACTS, reproduce, to_markdown
from filegram_kit.traces.profiles import load_profiles

ROOT = Path(__file__).resolve().parents[1]
# artifacts computed from the 640-trajectory corpus (or from such artifacts' tables) are checked in
# test_report_corpus.py (tiny corpus)
STATIC = [name for name, art in ARTIFACTS.items() if not art.corpus and not art.reads]
COMPARED = (".csv", ".md", ".html")  # PNG bytes depend on the browser build and fonts (export.py)


def test_reproduce_writes_csv_and_md_for_every_artifact(tmp_path):
    written = reproduce(tmp_path, only=STATIC, progress=False, images=False)
    expected = [f"{n}.{ext}" for n in STATIC for ext in ("csv", "md", *(["html"] if ARTIFACTS[n].figure else []))]
    assert sorted(p.name for p in written) == sorted(expected)
    table9 = pl.read_csv(tmp_path / "table09_profiles.csv")
    assert table9.height == 20
    profiles = load_profiles()
    assert all("".join(row[d] for d in "ABCDEF") == profiles[row["ID"]].vector for row in table9.iter_rows(named=True))
    table10 = pl.read_csv(tmp_path / "table10_tasks.csv")
    assert table10["In"].sum() == 578 and table10.height == 32
    assert pl.read_csv(tmp_path / "perturbations.csv").height == 100


def test_committed_figures_are_up_to_date(tmp_path):
    reproduce(tmp_path, only=STATIC, progress=False, images=False)
    stale = [p.name for p in sorted(tmp_path.iterdir()) if p.suffix in COMPARED and (
             not (ROOT / "figures" / p.name).exists() or (ROOT / "figures" / p.name).read_bytes() != p.read_bytes())]
    assert not stale, f"run `make reproduce` and commit figures/: {stale}"


def test_the_docs_map_every_artifact():
    page = (ROOT / "docs" / "reproduce.md").read_text(encoding="utf-8")
    missing = [name for name, art in ARTIFACTS.items() if f"{name}.{'png' if art.figure else 'md'}" not in page]
    assert not missing, f"docs/reproduce.md's artifact map lacks {missing}"


def test_every_file_in_figures_comes_from_a_registered_step_as_the_manifest_records_it():
    """No orphan in figures/ (a file no step writes any more), no step without its files, no file edited by hand."""
    import hashlib
    import json

    figures = ROOT / "figures"
    steps = json.loads((figures / "MANIFEST.json").read_text(encoding="utf-8"))["steps"]
    assert not set(steps) - set(ARTIFACTS), f"MANIFEST.json records unregistered steps: {set(steps) - set(ARTIFACTS)}"
    assert not set(ARTIFACTS) - set(steps), f"registered steps never run into figures/: {set(ARTIFACTS) - set(steps)}"
    recorded = {name: sha for step in steps.values() for name, sha in step["files"].items()}
    for name, art in ARTIFACTS.items():
        kinds = {".csv", ".md", *([".html", ".png"] if art.figure else [])}
        assert kinds <= {Path(f).suffix for f in steps[name]["files"]}, f"{name}: MANIFEST lacks some of {kinds}"
    on_disk = {p.name for p in figures.iterdir() if p.is_file() and not p.name.startswith(".")}  # .: this machine's
    on_disk -= {"MANIFEST.json", "plotly.min.js"}
    orphans = sorted(on_disk - set(recorded))
    assert not orphans, f"files in figures/ that no registered step wrote: {orphans}"
    assert not set(recorded) - on_disk, f"files a step wrote that are missing: {sorted(set(recorded) - on_disk)}"
    changed = [f for f, sha in recorded.items() if hashlib.sha256((figures / f).read_bytes()).hexdigest() != sha]
    assert not changed, f"figures/ files that differ from what `filegram reproduce` wrote: {changed}"


def test_the_docs_results_page_is_what_figures_give():
    from filegram_kit.report.results_page import results_page

    page = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert page == results_page(ROOT / "figures"), "docs/results.md is stale: `make reproduce` rewrites it (or run " \
        "`python -m filegram_kit.report.results_page`)"


def test_the_results_page_quotes_each_step_in_a_named_section(tmp_path):
    from filegram_kit.report.results_page import results_page

    for name in ARTIFACTS:
        (tmp_path / f"{name}.md").write_text(f"# Title of {name}\n\n![x]({name}.png)\n\n| a |\n|---|\n| 1 |\n")
    page = results_page(tmp_path)
    for name in ARTIFACTS:
        start, end = page.index(f"[start:{name}]"), page.index(f"[end:{name}]")
        assert f"## Title of {name}" in page[start:end] and f"](figures/{name}.png)" in page[start:end]
    (tmp_path / "table05_event_counts.md").unlink()
    with pytest.raises(FileNotFoundError, match="table05_event_counts.md"):
        results_page(tmp_path)


def test_unknown_artifact_is_a_clear_error(tmp_path):
    with pytest.raises(KeyError, match="unknown artifact"):
        reproduce(tmp_path, only=["table99"])


def test_markdown_escapes_pipes_and_marks_booleans():
    md = to_markdown(pl.DataFrame({"a": ["x|y"], "b": [True], "c": [None]}, schema={"a": pl.String, "b": pl.Boolean,
                                                                                   "c": pl.String}))
    assert md.splitlines() == ["| a | b | c |", "|---|---|---|", "| x\\|y | ✓ |  |"]


def test_artifact_returning_the_wrong_kind_is_a_clear_error(tmp_path, monkeypatch):
    from filegram_kit.report import Artifact

    def not_a_figure():
        return pl.DataFrame({"a": [1]})

    monkeypatch.setitem(ARTIFACTS, "figure99_bogus", Artifact("figure99_bogus", not_a_figure, "t", None, None,
                                                              figure=True))
    with pytest.raises(TypeError, match="registered to return a FigureData"):
        reproduce(tmp_path, only=["figure99_bogus"], progress=False)
