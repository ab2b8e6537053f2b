"""Every numbered notebook, exported to .ipynb by marimo's own exporter (what `make ipynb` does), runs top to
bottom in a Jupyter kernel of this virtualenv with no error cell (smoke mode, asked for by FILEGRAM_SMOKE=1:
a kernel has no command line). `make test` runs one light notebook this way (every notebook also runs as a
script there); `make check-notebooks`, which CI runs too, runs them all (tests/notebook_sets.py)."""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.notebook_sets import notebook_matrix

NOTEBOOKS = notebook_matrix(sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.py")))
PROBE = "import sys; print(sys.prefix)"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"  # appended in memory: which Python the kernel runs


def export(notebook: Path, out: Path) -> Path:
    """The notebook as .ipynb in topological order (the exporter's default; `make ipynb` names it too)."""
    target = out / f"{notebook.stem}.ipynb"
    subprocess.run([sys.executable, "-m", "marimo", "export", "ipynb", str(notebook), "-o", str(target),
                    "--sort", "topological", "-f"], check=True, capture_output=True, text=True, timeout=120)
    return target


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_exported_notebook_runs_in_a_jupyter_kernel(notebook, tmp_path, monkeypatch):
    monkeypatch.setenv("FILEGRAM_SMOKE", "1")  # the kernel inherits the environment
    nb = nbformat.read(export(notebook, tmp_path), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and code[0].metadata.get("marimo", {}).get("name") == "setup"  # `with app.setup:` comes first
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    # python3 is the kernel spec ipykernel installs into the venv (`make setup`); it starts sys.executable
    NotebookClient(nb, kernel_name="python3", timeout=600, allow_errors=False, store_widget_state=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()  # raises on the first error cell
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    assert all(c.execution_count for c in nb.cells if c.cell_type == "code" and c.source.strip())
    probe = "".join(o.get("text", "") for o in nb.cells[-1].outputs).strip()
    assert probe == sys.prefix  # the kernel is this virtualenv's Python
    # every widget a cell shows is a model the kernel published: JupyterLab finds it (before, marimo's layout took
    # the kernel's comms and 05's ItemBrowser said "Error displaying widget: model not found")
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    views = [o["data"][WIDGET_VIEW]["model_id"] for c in nb.cells if c.cell_type == "code" for o in c.outputs
             if WIDGET_VIEW in o.get("data", {})]
    assert all(model in state for model in views), f"{len(views)} widget views, models published: {len(state)}"
    # nothing needs marimo's front end (JupyterLab shows a `<marimo-dropdown>` as empty space) or a CDN (offline,
    # a plotly figure inside a layout was an iframe loading cdn.plot.ly): widgets/jupyter_outputs.py
    # (what cells reading a control show is in an Output widget's state: widgets/jupyter_reactive.py)
    nested = [o for model in state.values() for o in model.get("state", {}).get("outputs", [])]
    for where, output in [(f"cell {i}", o) for i, c in enumerate(nb.cells) for o in c.get("outputs", [])] + [
            ("an Output widget", o) for o in nested]:
        html = output.get("data", {}).get("text/html", "")
        assert "<marimo-" not in html, f"{where}: {html[:300]}"
        assert "cdn." not in html, f"{where}: a script from a CDN"
        assert output.get("output_type") != "error", f"{where}: {output.get('ename')}: {output.get('evalue')}"
