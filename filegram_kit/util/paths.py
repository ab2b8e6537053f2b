"""Where the project keeps its data: the checkout the package lives in (an editable install), else the working
directory, and the response cache's folder under it (or $FILEGRAM_CACHE)."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
ENV_DIR = "FILEGRAM_CACHE"


def project_root() -> Path:
    """The checkout this package lives in (editable install), else the working directory."""
    root = PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() else Path.cwd()


def cache_dir() -> Path:
    """$FILEGRAM_CACHE, else data/cache under the project root."""
    return Path(os.environ[ENV_DIR]) if os.environ.get(ENV_DIR) else project_root() / "data" / "cache"
