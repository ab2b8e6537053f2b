"""Every numbered notebook runs end to end as a plain script (smoke mode where it has one)."""

import subprocess
import sys
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.py"))


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_as_a_script(notebook, tmp_path):
    result = subprocess.run([sys.executable, str(notebook), "--", "--smoke"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_opening_a_notebook_runs_none_of_its_test_cells(notebook):
    """marimo runs a cell of only test functions under pytest on every run (`runtime.reactive_tests`); the
    project's pyproject.toml turns that off for `marimo edit` and `marimo run`. pytest still collects them."""
    from marimo._config.manager import get_default_config_manager

    config = get_default_config_manager(current_path=str(notebook)).get_config()
    assert config["runtime"]["reactive_tests"] is False
