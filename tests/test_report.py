from pathlib import Path

import polars as pl
import pytest

from filegram_kit.profiles import load_profiles
from filegram_kit.report import ARTIFACTS, reproduce, to_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_reproduce_writes_csv_and_md_for_every_artifact(tmp_path):
    written = reproduce(tmp_path, progress=False)
    assert sorted(p.name for p in written) == sorted(f"{n}.{ext}" for n in ARTIFACTS for ext in ("csv", "md"))
    table9 = pl.read_csv(tmp_path / "table09_profiles.csv")
    assert table9.height == 20
    profiles = load_profiles()
    assert all("".join(row[d] for d in "ABCDEF") == profiles[row["ID"]].vector for row in table9.iter_rows(named=True))
    table10 = pl.read_csv(tmp_path / "table10_tasks.csv")
    assert table10["In"].sum() == 578 and table10.height == 32
    assert pl.read_csv(tmp_path / "perturbations.csv").height == 100


def test_committed_figures_are_up_to_date(tmp_path):
    reproduce(tmp_path, progress=False)
    stale = [p.name for p in sorted(tmp_path.iterdir())
             if not (ROOT / "figures" / p.name).exists() or (ROOT / "figures" / p.name).read_bytes() != p.read_bytes()]
    assert not stale, f"run `make reproduce` and commit figures/: {stale}"


def test_readme_maps_every_artifact():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [name for name in ARTIFACTS if f"{name}.md" not in readme]
    assert not missing, f"README's reproduction table lacks {missing}"


def test_unknown_artifact_is_a_clear_error(tmp_path):
    with pytest.raises(KeyError, match="unknown artifact"):
        reproduce(tmp_path, only=["table99"])


def test_markdown_escapes_pipes_and_marks_booleans():
    md = to_markdown(pl.DataFrame({"a": ["x|y"], "b": [True], "c": [None]}, schema={"a": pl.String, "b": pl.Boolean,
                                                                                   "c": pl.String}))
    assert md.splitlines() == ["| a | b | c |", "|---|---|---|", "| x\\|y | ✓ |  |"]
