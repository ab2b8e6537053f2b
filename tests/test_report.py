from pathlib import Path

import polars as pl
import pytest

from filegram_kit.profiles import load_profiles
from filegram_kit.report import ARTIFACTS, reproduce, to_markdown

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


def test_readme_maps_every_artifact():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [name for name, art in ARTIFACTS.items() if f"{name}.{'png' if art.figure else 'md'}" not in readme]
    assert not missing, f"README's reproduction table lacks {missing}"


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
