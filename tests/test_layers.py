"""The architecture holds: no module imports one that imports it back (even through others), and the declared
layers (pyproject.toml's import-linter contract, checked by `make lint`) are kept."""

from __future__ import annotations

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
