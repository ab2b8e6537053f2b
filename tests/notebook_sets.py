"""Which notebooks the slow notebook checks run: all of them in `make check-notebooks` (and CI), one in `make test`.

Every notebook runs as a script in `make test` (tests/test_notebooks.py); running each again in a Jupyter kernel
and in the browser editor triples the suite's time, so `make test` checks those two paths on one light notebook
and `make check-notebooks` (FILEGRAM_ALL_NOTEBOOKS=1) on every one.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "FILEGRAM_ALL_NOTEBOOKS"
QUICK = ("01_persona_design",)


def all_notebooks() -> bool:
    return os.environ.get(ENV) == "1"


def notebook_matrix(notebooks: list[Path]) -> list[Path]:
    return notebooks if all_notebooks() else [n for n in notebooks if n.stem in QUICK]
