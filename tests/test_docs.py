"""The front door: a short README whose example runs and whose links lead somewhere, and a docs site that builds
offline, quotes generated tables and fetches nothing from the network."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 200, "README.md is the front door: move the detail to a page under docs/"


def test_every_relative_link_of_the_readme_leads_to_a_file():
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", README) if not t.startswith(("http", "#"))]
    assert len(targets) >= 15
    assert not [t for t in targets if not (ROOT / t).exists()]


def test_the_readme_library_example_runs(tmp_path):
    example = re.search(r"## The library in 20 lines\n+```python\n(.*?)```", README, re.S)
    assert example and len(example.group(1).splitlines()) <= 20
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", example.group(1)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"^\| FileGramOS \| offline/offline-v1 \|", done.stdout, re.M), done.stdout[-2000:]
    assert "## Procedural Patterns" in done.stdout  # the memory's context, read back


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.exists():
        pytest.skip("mkdocs is not installed (the dev extra has it)")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([str(mkdocs), "build", "--strict", "--quiet", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_the_site_fetches_nothing_from_other_hosts(site):
    """Scripts, styles, fonts and images come from the site itself (Material's Google Fonts are switched off)."""
    pages = list(site.rglob("*.html"))
    assert len(pages) >= 20
    loads = re.compile(r'<(?:script|img|iframe)[^>]+src="(https?://[^"]+)"|<link[^>]+href="(https?://[^"]+)"')
    fetched = {a or b for page in pages for a, b in loads.findall(page.read_text(encoding="utf-8"))}
    fetched |= {m for css in site.rglob("*.css") for m in re.findall(r"url\((?:['\"])?(https?://[^)'\"]+)",
                                                                     css.read_text(encoding="utf-8"))}
    assert not fetched, f"the site loads from the network: {sorted(fetched)[:5]}"


def test_the_site_shows_quoted_tables_and_examples_not_their_markers(site):
    results = (site / "results" / "index.html").read_text(encoding="utf-8")
    assert "8&lt;" not in results and "--8<--" not in results
    bench = (site / "bench" / "index.html").read_text(encoding="utf-8")
    assert "8&lt;" not in bench and bench.count("<table>") >= 3
    own = (site / "own-memory" / "index.html").read_text(encoding="utf-8")
    assert "HabitCounts" in own and "OverlapReader" in own and "8&lt;" not in own
    assert (site / "figures" / "figure03_data_distribution.png").is_file()  # the gallery's images are on the site
