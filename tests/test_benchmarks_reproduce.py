"""BENCHMARKS.md's reproduce timings are written by benchmarks/reproduce.py from figures/MANIFEST.json, never by
hand: the committed section holds exactly what the script writes from the committed manifest."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import reproduce as bench_reproduce  # noqa: E402 (benchmarks/reproduce.py, a script beside its helpers)


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads((ROOT / "figures" / "MANIFEST.json").read_text(encoding="utf-8"))


def test_the_section_lists_every_step_with_its_seconds_and_status(manifest):
    text = bench_reproduce.section(None, manifest)
    for name, step in manifest["steps"].items():
        assert f"| {name} | {step['seconds']} | {step.get('status', '')} |" in text
    assert f"corpus {manifest['corpus_seconds']} s" in text


def test_benchmarks_md_holds_the_full_run_as_the_script_writes_it(manifest):
    """Rerun `python benchmarks/reproduce.py --append BENCHMARKS.md` after `make reproduce` when this fails."""
    written = bench_reproduce.run_summary(manifest, None, "Full run (figures/MANIFEST.json)")
    committed = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert "\n".join(written) in committed


def test_a_partial_run_says_which_seconds_are_not_its_own(manifest):
    partial = {**manifest, "steps": {n: {**s, "status": "unchanged" if k else "ran"}
                                     for k, (n, s) in enumerate(manifest["steps"].items())}}
    text = "\n".join(bench_reproduce.run_summary(partial, 12.0, "run"))
    assert f"{len(manifest['steps']) - 1} of {len(manifest['steps'])} steps were unchanged" in text
    assert "**12 s** wall" in text
