"""Every numbered notebook, exported to .ipynb, opens in JupyterLab in the system's Chromium and after Run All
shows what its cells return: no error, no "Error displaying widget", no empty output, no request to another
host, and the explorers and controls reach the kernel (tests/jupyterlab_check.py says how each is read).
The notebooks with explorers run Run All twice in the same kernel first: their widgets must still respond.

The first test proves the detector on a toy notebook: a marimo control as marimo's HTML (empty space in
JupyterLab), a script from a CDN, a widget view whose model the kernel never published, and an error are each
found. `make check-notebooks` runs this file (CI too); `make test` skips it (tests/notebook_sets.py).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests import jupyterlab_check
from tests.jupyterlab_check import JupyterLabServer, check_notebook
from tests.notebook_sets import all_notebooks
from tests.test_jupyter import export

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.py"))
EXPLORER_NOTEBOOKS = {"02_trace_generation", "05_benchmark"}  # TimelineBrowser, ItemBrowser
pytestmark = pytest.mark.skipif(not all_notebooks(), reason="the JupyterLab check is `make check-notebooks` (CI)")

TOY_CELLS = [
    "print('a clean cell')",
    "import marimo as mo\nfrom IPython.display import HTML\n"
    "HTML(mo.ui.dropdown(['a', 'b'])._repr_html_())  # marimo's own HTML: a custom element JupyterLab cannot draw",
    "from IPython.display import HTML\n"
    "HTML('<p>a figure</p><script src=\"https://cdn.plot.ly/plotly-2.35.2.min.js\"></script>')",
    "from IPython.display import display\n"
    "display({'application/vnd.jupyter.widget-view+json': {'model_id': 'f' * 32, 'version_major': 2,\n"
    "        'version_minor': 0}, 'text/plain': 'a widget'}, raw=True)",
    "raise ValueError('boom in JupyterLab')",
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ipynb")
    for notebook in NOTEBOOKS:
        export(notebook, folder)
    toy = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in TOY_CELLS], metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbformat.write(toy, folder / "toy.ipynb")
    return folder


@pytest.fixture(scope="module")
def lab(exported, tmp_path_factory):
    with JupyterLabServer(exported, tmp_path_factory.mktemp("jupyterlab"), env={"FILEGRAM_SMOKE": "1"}) as server:
        yield server


def test_detector_finds_marimo_html_a_cdn_script_a_missing_widget_model_and_an_error(browser, lab, exported):
    run = check_notebook(browser, lab, exported / "toy.ipynb", interact=False)
    problems = "\n".join(run.problems())
    print(problems)
    assert [c.first_line for c in run.cells if c.errors] == ["raise ValueError('boom in JupyterLab')"]
    assert "ValueError: boom in JupyterLab" in problems
    empty = [c.index for c in run.cells if c.empty_outputs()]
    assert 1 in empty and 0 not in empty  # the marimo dropdown drew nothing; the printed line did
    assert run.cells[1].marimo_elements() == ["marimo-dropdown", "marimo-ui-element"]
    assert any(url.startswith("https://cdn.plot.ly/") for url in run.outside_requests)
    assert run.widget_errors and "Error displaying widget" in problems


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_shows_every_output_in_jupyterlab(browser, lab, exported, notebook):
    explorers = notebook.stem in EXPLORER_NOTEBOOKS  # Run All twice in one kernel: the widgets still work
    run = check_notebook(browser, lab, exported / f"{notebook.stem}.ipynb", rounds=2 if explorers else 1)
    shown = sum(len(c.rendered) for c in run.cells)
    print(f"{notebook.stem}: {len(run.cells)} code cells, Run All {run.seconds:.1f} s, {shown} outputs shown; "
          f"explorers {run.explorers} ({'; '.join(run.explorer_changes)}); control: {run.control_change}, "
          f"outputs then updated in cells {run.outputs_updated}")
    assert run.cells and shown, f"{notebook.stem}: JupyterLab showed no output"
    assert not run.problems(), "\n".join(run.problems())
    if explorers:
        assert run.explorers >= 1 and len(run.explorer_changes) == run.explorers


STALE_CASES = {  # notebook: (the control changed, its kind, what the note names, the result's text, its Run button)
    "06_channel_ablation": (".widget-select-multiple select", "multiselect", "Your channels", "Your run:",
                            "Run the ablation"),
    "07_sensitivity_sweeps": (".widget-checkbox input[type=checkbox]", "checkbox", "Base setting",
                              "FileGramOS Avg per Table 14 knob",
                              "Sweep every knob"),
}


@pytest.mark.parametrize("name", list(STALE_CASES))
def test_jupyterlab_keeps_the_last_result_marked_stale_until_run(browser, lab, exported, name):
    """docs/notebooks.md, Results that stay, as in marimo: after Run All a changed control keeps the gated cell's
    result under a note naming what changed; the cell's Run button (a real button in the kernel) replaces it."""
    selector, kind, named, shown, button = STALE_CASES[name]
    seen: dict[str, str] = {}

    def then(page, run):
        texts = jupyterlab_check.shown_texts(page)
        gated = next(index for index, text in texts.items() if shown in text)
        seen["before"] = texts[gated]
        jupyterlab_check.change_control(page, ".jp-OutputArea-output " + selector, kind)
        seen["stale"] = jupyterlab_check.shown_texts(page)[gated]
        jupyterlab_check.press(page, button)
        seen["fresh"] = jupyterlab_check.shown_texts(page)[gated]

    run = check_notebook(browser, lab, exported / f"{name}.ipynb", interact=False, then=then)
    assert not run.problems(), "\n".join(run.problems())
    assert "changed: press" not in seen["before"]
    assert f"{named} changed: press {button} to update" in seen["stale"] and shown in seen["stale"]
    assert "changed: press" not in seen["fresh"] and shown in seen["fresh"]
