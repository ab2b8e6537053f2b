"""In a Jupyter kernel, marimo's layout does not take the kernel's display, comms or widgets: after
`mo.vstack([...])` (which registers marimo's formatters kernel-wide: `display` went to marimo, widgets opened
marimo comms and JupyterLab said "model not found"), `display(...)` still shows and the explorers open Jupyter
comms whose models the kernel publishes, also when the cells run a second time in the same kernel."""

from __future__ import annotations

import nbformat
from nbclient import NotebookClient

from filegram_kit.widgets import restore_jupyter_kernel
from filegram_kit.widgets.jupyter_kernel import taken_over

LAYOUT = """import comm
import marimo as mo
import polars as pl
from IPython.display import display
display(mo.vstack([mo.md("a table"), pl.DataFrame({"a": [1, 2]})]))  # marimo's layout, outside its runtime
display("still shown")"""
WIDGET = """from filegram_kit.bench.schema import Item
from filegram_kit.widgets import ItemBrowser
item = Item(question_id="q1", track="T1_understanding", sub_track="attribute_recognition", sub_class="x",
            channel="procedural", profile_id="p1", input_trajectories=("p1_T-01",), question="q?",
            choices=("yes", "no"), correct="A")
browser = ItemBrowser([item])
display(browser)
print("comm:", type(browser.comm).__module__, browser.model_id)"""
VIEW = "application/vnd.jupyter.widget-view+json"


def _run(cells: list[str], tmp_path) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name="python3", timeout=300, store_widget_state=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    return nb


def _shown(cell) -> list[dict]:
    return [o["data"] for o in cell.outputs if o.output_type == "display_data"]


def test_marimo_layout_in_a_plain_kernel_swallows_later_output(tmp_path):
    """The failure being fixed, shown without filegram_kit: the second display after a marimo layout is lost."""
    nb = _run([LAYOUT.replace('display("still shown")', ""), 'from IPython.display import display\n'
               'display("lost")\nimport comm\nprint(comm.create_comm.__module__)'], tmp_path)
    assert not _shown(nb.cells[1])
    assert "marimo" in "".join(o.get("text", "") for o in nb.cells[1].outputs)


def test_after_a_marimo_layout_display_and_widgets_still_reach_jupyter_also_on_a_second_run(tmp_path):
    nb = _run(["import filegram_kit.widgets", LAYOUT, WIDGET, LAYOUT, WIDGET], tmp_path)
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for layout, widget in ((nb.cells[1], nb.cells[2]), (nb.cells[3], nb.cells[4])):
        assert [d.get("text/plain") for d in _shown(layout)][-1] == "'still shown'"
        printed = "".join(o.get("text", "") for o in widget.outputs if o.output_type == "stream")
        module, model_id = printed.removeprefix("comm:").split()
        assert module.startswith("ipykernel")
        assert model_id in state  # the kernel published the model: JupyterLab can find it
        assert [d[VIEW]["model_id"] for d in _shown(widget) if VIEW in d] == [model_id]


def test_a_widget_made_after_a_layout_without_the_import_first_still_opens_a_jupyter_comm(tmp_path):
    nb = _run([LAYOUT, WIDGET], tmp_path)  # marimo took the kernel before filegram_kit.widgets was imported
    printed = "".join(o.get("text", "") for o in nb.cells[1].outputs if o.output_type == "stream")
    assert printed.removeprefix("comm:").split()[0].startswith("ipykernel")


def test_a_kernel_that_never_imports_marimo_is_left_alone(tmp_path):
    nb = _run(["import sys\nimport filegram_kit.widgets\nprint('marimo' in sys.modules)"], tmp_path)
    assert "".join(o.get("text", "") for o in nb.cells[0].outputs).strip() == "False"


def test_outside_a_kernel_nothing_is_changed():
    import comm
    from IPython.core import display_functions

    before = comm.create_comm, display_functions.display
    assert not taken_over() and not restore_jupyter_kernel()
    assert (comm.create_comm, display_functions.display) == before
