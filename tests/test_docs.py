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
    done = subprocess.run([str(mkdocs), "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.mark.parametrize("planted", [False, True])
def test_make_docs_fails_on_a_broken_link(tmp_path, planted):
    """`make docs` (in `make test`) on a copy of the site: green as it is, red once a page links a missing file
    (a `--quiet` build once let every warning through)."""
    import shutil

    if not Path(sys.executable).with_name("mkdocs").exists() or shutil.which("make") is None:
        pytest.skip("needs mkdocs (the dev extra) and make")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    for name in ("mkdocs.yml", "BENCHMARKS.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "figures").symlink_to(ROOT / "figures")
    if planted:
        with (tmp_path / "docs" / "index.md").open("a", encoding="utf-8") as page:
            page.write("\nSee [the missing page](no_such_page.md).\n")
    stamp = ".venv/.installed"  # as the Makefile names it: taken as made, so the test never runs setup
    done = subprocess.run(["make", "-s", "-o", stamp, "docs", f"DOCS_CONFIG={tmp_path / 'mkdocs.yml'}",
                           f"BIN={Path(sys.executable).parent}"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    if planted:
        assert done.returncode != 0 and "no_such_page.md" in done.stderr, done.stdout + done.stderr
    else:
        assert done.returncode == 0, done.stdout + done.stderr


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


# An estimate with its interval in the prose ("42.9 [32.3, 52.8]", "+0.7 [-1.0, 2.6]"): each must be read, at the
# prose's rounding, from one line of a generated file (figures/, BENCHMARKS.md), so a rerun that moves a number
# makes the page fail here instead of going stale. Estimates that no file holds any more are listed with why.
_NUMBER = r"[-+]?\d+(?:\.\d+)?"
_ESTIMATE = re.compile(rf"({_NUMBER})%? (?:AUC |points )?\[({_NUMBER}), ({_NUMBER})\]")
NOT_GENERATED = {
    ("knowact.md", "45.8 [39.2, 53.3]"): "history: the Act ceiling before the instrument of issue 36",
    ("track4.md", "-10.3 [-22.3, -1.0]"): "history: Full Context's semantic items before Chinese was rendered",
    ("track4.md", "-1.4 [-3.9, 0.7]"): "history: FileGramOS, multimodal - text, before Chinese was rendered",
    ("track4.md", "-1.3 [-3.3, 0.5]"): "history: Full Context, multimodal - text, before Chinese was rendered",
    ("bench.md", "45.6 [42.3, 48.7]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "+4.4 [0.2, 8.7]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "34.5 [30.0, 39.1]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "+12.0 [7.1, 17.6]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "43.3 [38.2, 49.1]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "+1.5 [-2.9, 6.1]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "57.1 [55.7, 58.6]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "+1.2 [-1.4, 3.3]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "+25.4 [15.4, 34.8]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "53.4 [47.6, 59.0]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "+7.4 [2.9, 11.9]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "62.8 [59.3, 66.8]"): "history: before the slot reader of issue 48 (2591e1d)",
    ("bench.md", "+9.8 [6.1, 13.6]"): "history: before the slot reader of issue 48 (2591e1d)",
}


def _prose(text: str) -> str:
    """The page without its fenced blocks (example output, as on a reader's machine)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _matches(written: tuple[str, ...], numbers: list[float]) -> bool:
    """The written numbers are consecutive numbers of the line (an estimate and its bounds: "X [L, U]" or three
    cells in a row) at the written decimals, each read as it is or x100 (a share written as %); half a unit of the
    last written place either way, as the generated number may itself be rounded (0.585 -> 0.59)."""
    def close(text: str, n: float, scale: int) -> bool:
        return abs(n * scale - float(text)) <= 0.5 * 10.0 ** -len(text.partition(".")[2]) + 1e-9
    k = len(written)
    return any(all(close(t, n, scale) for t, n in zip(written, numbers[i:i + k], strict=True))
               for i in range(len(numbers) - k + 1) for scale in (1, 100))


def test_every_estimate_with_an_interval_in_the_docs_is_read_from_a_generated_file():
    generated = [ROOT / "BENCHMARKS.md", *sorted((ROOT / "figures").glob("*.md")),
                 *sorted((ROOT / "figures").glob("*.csv"))]
    lines = [[float(x) for x in re.findall(_NUMBER, line)] for path in generated
             for line in path.read_text(encoding="utf-8").splitlines()]
    lines = [numbers for numbers in lines if len(numbers) >= 3]
    stale, checked, seen = [], 0, set()
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name == "results.md":
            continue
        for match in _ESTIMATE.finditer(_prose(page.read_text(encoding="utf-8"))):
            written = match.groups()
            quoted = f"{written[0]} [{written[1]}, {written[2]}]"
            seen.add((page.name, quoted))
            if (page.name, quoted) in NOT_GENERATED:
                continue
            checked += 1
            if not any(_matches(written, numbers) for numbers in lines):
                stale.append(f"docs/{page.name}: {quoted}")
    assert checked >= 30  # the pattern still finds the pages' estimates
    gone = sorted(set(NOT_GENERATED) - seen)
    assert not gone, f"listed as not generated but no longer on the page (drop them from NOT_GENERATED): {gone}"
    assert not stale, "estimates no generated file holds (rerun, or quote the new number):\n" + "\n".join(stale)


def test_the_estimate_check_catches_a_number_that_moved():
    line = [41.6, 0.7, -1.0, 2.6]
    assert _matches(("+0.7", "-1.0", "2.6"), line)
    assert not _matches(("+0.8", "-1.0", "2.6"), line)
    assert not _matches(("41", "0.7", "-1.0"), line)  # 41.6 is written 42
    assert not _matches(("41.6", "-1.0", "2.6"), line)  # numbers of one line, but not an estimate and its bounds
    assert _matches(("45.8", "39.2", "53.3"), [0.458, 0.392, 0.533])  # a share written as %
