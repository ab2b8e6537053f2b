"""marimo's outputs as Jupyter outputs (filegram_kit/widgets/jupyter_outputs.py): layouts taken apart into the
figures, tables and controls they hold, every control an ipywidget that sets its marimo control's value, marimo's
own elements as plain HTML; then the same in a real Jupyter kernel, where nothing needs marimo's front end and
nothing loads from a CDN."""

from __future__ import annotations

import ipywidgets
import marimo as mo
import nbformat
import plotly.graph_objects as go
import polars as pl
import pytest
from IPython.display import HTML
from marimo._output.formatting import OPINIONATED_FORMATTERS
from nbclient import NotebookClient

from filegram_kit.widgets import jupyter_outputs as jo

VIEW = "application/vnd.jupyter.widget-view+json"
PLOTLY = "application/vnd.plotly.v1+json"


@pytest.fixture
def kept(monkeypatch):
    """The object formatter `serve_jupyter` installs in a kernel, for this test only."""
    monkeypatch.setitem(OPINIONATED_FORMATTERS.formatters, object, jo.keep)
    for cached in [t for t, f in OPINIONATED_FORMATTERS.formatters.items() if f is not jo.keep and t is not object]:
        monkeypatch.delitem(OPINIONATED_FORMATTERS.formatters, cached)  # marimo caches lookups per type


def _figure() -> go.Figure:
    return go.Figure(go.Bar(x=["a", "b"], y=[1, 2]))


@pytest.mark.parametrize(("make", "set_to", "expected"), [
    (lambda: mo.ui.dropdown({"one": 1, "two": 2}, value="one"), "two", 2),
    (lambda: mo.ui.dropdown(["a", "b"], value="a", allow_select_none=True), None, None),
    (lambda: mo.ui.multiselect(["x", "y", "z"], value=["y"]), ("x", "z"), ["x", "z"]),
    (lambda: mo.ui.radio(["r1", "r2"], value="r1"), "r2", "r2"),
    (lambda: mo.ui.slider(0, 10, value=3), 7, 7),
    (lambda: mo.ui.slider(steps=[1, 2, 5, 10], value=2), 10, 10),
    (lambda: mo.ui.number(0, 100, step=5, value=10), 35, 35),
    (lambda: mo.ui.number(value=0.5), 1.25, 1.25),
    (lambda: mo.ui.switch(value=False), True, True),
    (lambda: mo.ui.checkbox(value=True), False, False),
    (lambda: mo.ui.text(value="hi"), "hello", "hello"),
    (lambda: mo.ui.text_area(value="x"), "y\nz", "y\nz"),
])
def test_each_control_is_an_ipywidget_that_sets_its_marimo_value(make, set_to, expected):
    element = make()
    widget = jo.control_widget(element)
    assert isinstance(widget, ipywidgets.ValueWidget)
    assert element.value != expected  # the widget starts at the control's value ...
    widget.value = set_to
    assert element.value == expected  # ... and a change reaches the marimo control the cells below read


def test_a_control_keeps_its_label_and_starting_value():
    element = mo.ui.dropdown(["a", "b"], value="b", label="**Pick** one")
    widget = jo.control_widget(element)
    assert widget.value == "b" and "<strong>Pick</strong>" in widget.description


def test_a_dropdown_with_no_choice_shows_one_that_can_be_picked_back():
    """ipywidgets reads a None value as "nothing selected": the first option a user picks would then be the None
    entry and change nothing. No choice is an option of its own instead, selected at the start."""
    element = mo.ui.dropdown({"first file": 0, "second file": 1}, value=None, label="A file")
    widget = jo.control_widget(element)
    assert widget.index == 0 and widget.label == "—" and element.value is None
    widget.value = "second file"
    assert element.value == 1
    widget.index = 0
    assert element.value is None


def test_a_run_button_is_a_button_that_says_what_it_runs():
    element = mo.ui.run_button(label="Build the items")
    widget = jo.control_widget(element)
    assert isinstance(widget, ipywidgets.Button) and widget.description == "Build the items"
    assert widget.tooltip == jo.GATE_NOTE and jo.bound_widget(element) is widget


def test_a_layout_is_taken_apart_into_what_jupyter_shows(kept):
    frame = pl.DataFrame({"n": list(range(25))})
    choice = mo.ui.dropdown(["a", "b"], value="a")
    figure = _figure()
    shown = list(jo.parts(mo.vstack([mo.md("# Title"), figure, mo.ui.table(frame, selection=None),
                                     mo.hstack([choice, mo.md("beside it")])])))
    assert isinstance(shown[0], HTML) and "Title" in shown[0].data
    assert shown[1] is figure  # Jupyter's own renderer shows it: plotly's extension, offline
    assert "<table" in shown[2].data and ">19<" in shown[2].data and ">20<" not in shown[2].data
    assert "first 20 of 25 rows" in shown[3].data
    row = shown[4]
    assert isinstance(row, ipywidgets.HBox) and isinstance(row.children[0], ipywidgets.Dropdown)
    assert "beside it" in row.children[1].value
    row.children[0].value = "b"
    assert choice.value == "b"
    assert all("<marimo-" not in getattr(part, "data", "") for part in shown)


def test_plain_html_stays_one_output_as_marimo_wrote_it(kept):
    stack = mo.vstack([mo.md("one"), mo.md("two")])
    assert [part.data for part in jo.parts(stack)] == [stack.text]


def test_an_object_inside_markdown_shows_in_its_place(kept):
    figure = _figure()
    shown = list(jo.parts(mo.md(f"before {mo.as_html(figure)} after")))
    assert [type(p) for p in shown] == [HTML, go.Figure, HTML]
    assert "before" in shown[0].data and "after" in shown[2].data and shown[1] is figure


def test_tabs_and_accordions_become_ipywidgets_panels(kept):
    tabs = mo.ui.tabs({"first": mo.md("one"), "second": _figure()})
    (box,) = jo.parts(tabs)
    assert isinstance(box, ipywidgets.Tab) and box.titles == ("first", "second")
    assert box.children[1].outputs[0]["data"].keys() >= {PLOTLY}
    box.selected_index = 1
    assert tabs.value == "second"
    (acc,) = jo.parts(mo.accordion({"Numbers": mo.ui.table(pl.DataFrame({"a": [1]}), selection=None)}))
    assert isinstance(acc, ipywidgets.Accordion) and acc.titles == ("Numbers",) and acc.selected_index is None
    assert "<table" in acc.children[0].outputs[0]["data"]["text/html"]


def test_marimo_math_stats_and_callouts_become_plain_html():
    text = jo.plain_html(mo.hstack([mo.md(r"$x^2$ inline"), mo.md(r"$$y$$"),
                                    mo.stat(value="42", label="items", caption="now"),
                                    mo.callout(mo.md("careful"), kind="warn")]).text)
    assert "<marimo-" not in text
    assert r"\(x^2\)" in text and r"\[y\]" in text
    assert "42" in text and "items" in text and "now" in text and "careful" in text


def test_outside_a_kernel_nothing_is_served():
    assert not jo.serve_jupyter()
    assert OPINIONATED_FORMATTERS.formatters.get(object) is not jo.keep


def test_in_a_jupyter_kernel_a_layout_shows_figure_table_and_control_with_no_marimo_front_end(tmp_path):
    cells = ["import marimo as mo\nimport polars as pl\nimport plotly.graph_objects as go\n"
             "import filegram_kit.notebook_args",
             "pick = mo.ui.dropdown(['a', 'b'], value='a', label='pick')\n"
             "mo.vstack([mo.md('**a figure**'), go.Figure(go.Bar(x=[1], y=[2])),\n"
             "           mo.ui.table(pl.DataFrame({'a': [1, 2]}), selection=None), pick])",
             "mo.ui.plotly(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])))",
             "mo.stat(value='7', label='seven')"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name="python3", timeout=300, store_widget_state=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "<marimo-" not in html and "cdn.plot.ly" not in html
    layout = [list(o["data"]) for o in nb.cells[1].outputs]
    assert any(PLOTLY in mimes for mimes in layout)  # the figure as plotly's own output: drawn offline
    assert "<table" in "".join(o["data"].get("text/html", "") for o in nb.cells[1].outputs)
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    dropdowns = [o["data"][VIEW]["model_id"] for o in nb.cells[1].outputs if VIEW in o["data"]]
    assert [state[m]["model_name"] for m in dropdowns] == ["DropdownModel"]
    assert PLOTLY in nb.cells[2].outputs[0]["data"]
    assert "seven" in nb.cells[3].outputs[0]["data"]["text/html"]


def test_in_a_jupyter_kernel_changing_a_control_reruns_the_cells_that_read_it_in_place(tmp_path):
    cells = ["import marimo as mo\nimport filegram_kit.notebook_args",
             "pick = mo.ui.dropdown(['a', 'b'], value='a', label='pick')\npick",
             "shown = f'picked {pick.value}'\nprint('printed', pick.value)\nmo.md(shown)",
             "mo.md('reads nothing that changed')",
             "mo.vstack([mo.md(f'and from there: {shown.upper()}'), mo.md('a second output')])",
             "mo.md(f'{1 / (pick.value == \"a\")}')",
             "pick.value * 3  # a plain last value",
             "from filegram_kit.widgets.jupyter_outputs import bound_widget\n"
             "bound_widget(pick).value = 'b'  # what choosing 'b' in JupyterLab does\nprint(pick.value)"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name="python3", timeout=300, store_widget_state=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]

    def shown(index: int) -> list[dict]:
        """The cell's outputs, those inside the widgets it shows included (a reactive cell's Output)."""
        found = []
        for output in nb.cells[index].outputs:
            found.append(output)
            model = output.get("data", {}).get(VIEW, {}).get("model_id")
            found += state.get(model, {}).get("state", {}).get("outputs", [])
        return found

    def text(index: int) -> str:
        return "".join(o.get("data", {}).get("text/html", "") + o.get("text", "") + o.get("evalue", "")
                       for o in shown(index))

    assert not [o for c in nb.cells for o in c.outputs if o.output_type == "error"]
    assert "".join(o.get("text", "") for o in nb.cells[7].outputs).strip() == "b"
    assert "picked b" in text(2) and "picked a" not in text(2)  # updated where it was shown
    assert "printed b" in text(2)  # what the re-run printed, in the same place
    assert "and from there: PICKED B" in text(4) and "a second output" in text(4)  # reads what cell 2 defines
    assert text(3).count("reads nothing that changed") == 1 and not [o for o in nb.cells[3].outputs
                                                                      if VIEW in o.get("data", {})]
    assert "ZeroDivisionError" in "".join(o.get("ename", "") for o in shown(5))  # a re-run's error is shown
    assert [o["data"]["text/plain"] for o in shown(6) if "text/plain" in o.get("data", {}) and VIEW not in o["data"]
            ] == ["'bbb'"]  # the plain value, re-computed in place
