"""The architecture holds: no module imports one that imports it back (even through others), and the declared
layers (pyproject.toml's import-linter contract, checked by `make lint`) are kept."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp")
ROOT = Path(__file__).resolve().parents[1]


def test_no_module_imports_one_that_imports_it_back():
    graph = grimp.build_graph("filegram_kit", cache_dir=None, exclude_type_checking_imports=True)
    cycles = sorted({tuple(sorted((m, i))) for m in graph.modules for i in graph.find_modules_directly_imported_by(m)
                     if i.startswith("filegram_kit") and graph.chain_exists(importer=i, imported=m)})
    assert not cycles, f"import cycles (a module reaches back to one that imports it): {cycles[:10]}"


def test_the_declared_layers_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.skip("import-linter is not installed (the dev extra has it)")
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 broken" in done.stdout


def test_the_bench_package_serves_its_entry_points_and_imports_them_only_when_asked():
    script = """
import json, sys
import filegram_kit.bench as bench
light = not any(m in sys.modules for m in ("filegram_kit.bench.harness", "filegram_kit.bench.analysis"))
served = {name: (getattr(bench, name).__name__, getattr(bench, name).__module__) for name in bench.__all__
          if callable(getattr(bench, name)) and not isinstance(getattr(bench, name), type)}
print(json.dumps({"light": light, "served": served}))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    assert got["light"], "importing filegram_kit.bench pulled in the harness or the analysis"
    wanted = {"build_items", "load_items", "write_items", "evaluate", "load_results", "table3", "format_table3",
              "readout", "format_readout"}
    assert wanted <= set(got["served"]), sorted(wanted - set(got["served"]))
    assert all(name == fn for name, (fn, _) in got["served"].items())  # each name is the function, not a module
