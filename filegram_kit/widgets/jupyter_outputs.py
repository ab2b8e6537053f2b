"""marimo's outputs as Jupyter outputs: in a Jupyter kernel, layouts, controls, tables and figures all show.

The notebooks are marimo notebooks. Exported to .ipynb and run in a Jupyter kernel, marimo's outputs are HTML
written for marimo's own front end: its controls and tables are custom elements (`<marimo-dropdown>`,
`<marimo-table>`) that JupyterLab shows as empty space, and a plotly figure inside `mo.vstack` becomes an
iframe that loads plotly.js from a CDN. `serve_jupyter()` (called when `filegram_kit.notebook_args` or
`filegram_kit.widgets` is imported in a Jupyter kernel, nowhere else) teaches the kernel to show them with
Jupyter's own means:

- a marimo output whose HTML needs no marimo front end (markdown, plain stacks) shows as that HTML; math,
  `mo.stat` and `mo.callout` are rewritten as plain HTML (`plain_html`);
- a stack holding figures, tables or controls is taken apart: each figure or frame is shown by Jupyter's own
  renderer (plotly's JupyterLab extension: offline), a row of controls and text is an `HBox`;
- every marimo control is an ipywidget bound to it (`control_widget`): changing it sets the control's value in
  the kernel and re-runs the cells that read it, their outputs updated in place (jupyter_reactive.py). A run
  button only gates work, and in a Jupyter kernel the gated cells run anyway (`autorun_mode()`): it says so;
- `mo.ui.table` shows its frame as a table, `mo.ui.tabs` and `mo.accordion` become ipywidgets tabs and
  accordions, `mo.ui.anywidget` the widget itself.

How: marimo turns each object in a layout into HTML with its formatters; in a Jupyter kernel one formatter for
`object`, ahead of marimo's own (`OPINIONATED_FORMATTERS` comes first), keeps the object and leaves a
placeholder in the HTML (`keep`), and IPython's display of any marimo `Html` goes through `show`.
"""

from __future__ import annotations

import html
import json
import re
import sys
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from .jupyter_kernel import in_jupyter_kernel, restore_jupyter_kernel
from .jupyter_reactive import button_pressed, control_changed, display_output, install_reactor

PLACEHOLDER = '<div data-filegram-output="{key}"></div>'
_PLACEHOLDER_RE = re.compile(r'<div data-filegram-output="(\d+)"></div>')
_KEPT: OrderedDict[int, Any] = OrderedDict()  # placeholder key -> object, the most recent only
KEEP = 512  # objects made into layouts and not shown yet (a layout is shown right after it is made)
TABLE_ROWS = 20  # rows a table shows in Jupyter (marimo pages them); the rest is counted below it
CONTROLS = frozenset({"dropdown", "radio", "multiselect", "slider", "number", "switch", "checkbox", "text",
                      "text_area", "run_button"})  # marimo controls with an ipywidgets form (`control_widget`)
NO_CHOICE = "\u2014 no choice \u2014"  # a dropdown's "nothing selected" option (marimo's value None)
GATE_NOTE = "runs the cells this button gates (Run All runs them too)"
_WIDGETS: dict[int, Any] = {}  # id of a live marimo control -> its ipywidget (controls are unhashable)
_served = False


def keep(obj: Any) -> tuple[str, str]:
    """marimo formatter for any object: remember it, return a placeholder `show` finds again."""
    key = id(obj)
    _KEPT[key] = obj
    _KEPT.move_to_end(key)
    while len(_KEPT) > KEEP:
        _KEPT.popitem(last=False)
    return "text/html", PLACEHOLDER.format(key=key)


def serve_jupyter() -> bool:
    """In a Jupyter kernel (marimo imported, not its runtime): show marimo's outputs with Jupyter's means.
    Idempotent; returns whether this kernel is served."""
    global _served
    if not in_jupyter_kernel() or "marimo" not in sys.modules:
        return False
    restore_jupyter_kernel()  # marimo's formatters are registered first: ours go on top of them
    if _served:
        return True
    from IPython import get_ipython
    from marimo._output.formatting import OPINIONATED_FORMATTERS
    from marimo._output.hypertext import Html

    shell = get_ipython()
    OPINIONATED_FORMATTERS.add_formatter(object, keep)
    shell.display_formatter.ipython_display_formatter.for_type(Html, show)
    install_reactor(shell)  # a changed control re-runs the cells that read it (jupyter_reactive.py)
    _served = True
    return True


def show(obj: Any) -> bool:
    """IPython's display of a marimo `Html`: each part as its own Jupyter output."""
    from IPython.display import display

    restore_jupyter_kernel()  # a control or layout made since may have let marimo take the kernel's hooks
    for part in parts(obj):
        display(part)
    return True


# ---------------------------------------------------------------- a marimo output, taken apart


def parts(obj: Any) -> Iterator[Any]:
    """What to display for a marimo output, in order: HTML, ipywidgets, figures, frames."""
    from marimo._output.hypertext import Html
    from marimo._plugins.ui._core.ui_element import UIElement

    if isinstance(obj, UIElement):
        yield from _element_parts(obj)
        return
    if not isinstance(obj, Html):
        yield from _object_parts(obj)
        return
    text = obj.text
    if not _needs_taking_apart(text):
        yield _html(plain_html(text))
        return
    if type(obj).__name__ == "accordion":  # its children are its labels, then its panels
        yield _panels("Accordion", list(obj._labels), list(obj._tabs))
        return
    children = _children(obj)
    if children is None:  # HTML with objects or controls inside: split at the placeholders
        yield from _split(text)
        return
    row = [_inline(child) for child in children] if _is_row(obj) else [None]
    if all(widget is not None for widget in row):
        from ipywidgets import HBox, Layout

        yield HBox(row, layout=Layout(flex_flow="row wrap"))
        return
    for child in children:
        yield from parts(child)


def _needs_taking_apart(text: str) -> bool:
    """Whether HTML holds kept objects, or marimo elements only marimo's front end draws."""
    return "data-filegram-output" in text or "<marimo-" in plain_html(text)


def _children(obj: Any) -> list[Any] | None:
    """A layout's children (marimo keeps them live), or None for a leaf."""
    for name in ("_live_children", "_children"):
        children = getattr(obj, name, None)
        if isinstance(children, list):
            return children
    return None


def _is_row(obj: Any) -> bool:
    return "flex-direction: row" in (getattr(obj, "_style", None) or "")


def _inline(child: Any) -> Any:
    """The widget a row shows for `child` (a control or plain text), or None: a row holding a figure or a
    table is shown one part after another instead."""
    from ipywidgets import HTML
    from marimo._output.hypertext import Html
    from marimo._plugins.ui._core.ui_element import UIElement

    if isinstance(child, UIElement):
        return control_widget(child) if type(child).__name__ in CONTROLS else None
    if isinstance(child, Html) and not _needs_taking_apart(child.text):
        return HTML(plain_html(child.text))
    return None


def _split(text: str) -> Iterator[Any]:
    """HTML with placeholders: the HTML between them, and each kept object in its place."""
    pos = 0
    for match in _PLACEHOLDER_RE.finditer(text):
        before = text[pos:match.start()]
        if _visible(before):
            yield _html(plain_html(before))
        yield from _object_parts(_KEPT.get(int(match.group(1)), "(an output no longer held)"))
        pos = match.end()
    rest = text[pos:]
    if _visible(rest):
        yield _html(plain_html(rest))


def _visible(fragment: str) -> bool:
    return bool(re.sub(r"<[^>]*>|\s", "", fragment))


def _object_parts(obj: Any) -> Iterator[Any]:
    """A plain object (a figure, a frame, text) as Jupyter shows it; text as marimo does, without quotes."""
    if isinstance(obj, str | int | float):
        yield _html(f"<span>{html.escape(str(obj))}</span>")
    else:
        yield _frame(obj)


def _html(text: str) -> Any:
    from IPython.display import HTML

    return HTML(text)


def _panels(kind: str, labels: list[str], children: list[Any]) -> Any:
    """ipywidgets Tab or Accordion: one Output per child, holding that child's parts."""
    import ipywidgets

    outputs = []
    for child in children:
        out = ipywidgets.Output()
        out.outputs = tuple(display_output(_mime_bundle(part)) for part in parts(child))
        outputs.append(out)
    box = getattr(ipywidgets, kind)(children=outputs)
    box.titles = tuple(_text(label) for label in labels)
    if kind == "Accordion":
        box.selected_index = None
    return box


def _mime_bundle(part: Any) -> dict[str, Any]:
    """What `display(part)` would send, for an Output widget's list (a figure's `_ipython_display_` would
    display it beside the widget instead)."""
    from IPython.display import HTML

    if isinstance(part, HTML):
        return {"text/html": part.data, "text/plain": "<HTML>"}
    if type(part).__module__.startswith("plotly."):  # the mime type plotly's JupyterLab extension draws offline
        import plotly.io as pio

        return {**pio.renderers["plotly_mimetype"].to_mimebundle(json.loads(part.to_json())), "text/plain": "<Figure>"}
    bundle = getattr(part, "_repr_mimebundle_", None)
    if callable(bundle):
        data = bundle()
        data = data[0] if isinstance(data, tuple) else data
        if data:
            return data
    from IPython.core.formatters import format_display_data

    return format_display_data(part)[0]


# ---------------------------------------------------------------- controls


def _element_parts(element: Any) -> Iterator[Any]:
    kind = type(element).__name__
    if kind == "anywidget":
        yield element.widget
    elif kind == "table":
        yield from table_parts(element)
    elif kind == "plotly":
        yield element._figure
    elif kind == "tabs":
        yield _tabs(element)
    else:
        yield control_widget(element)


def table_parts(element: Any) -> Iterator[Any]:
    """`mo.ui.table`: its label, its first TABLE_ROWS rows as a table, and how many there are."""
    label = _label(element)
    if label:
        yield _html(label)
    data = element._data
    rows = _height(data)
    shown = data if rows is None or rows <= TABLE_ROWS else data.head(TABLE_ROWS)
    yield _frame(shown)
    if rows is not None and rows > TABLE_ROWS:
        yield _html(f"<small>first {TABLE_ROWS} of {rows:,} rows</small>")


def _height(data: Any) -> int | None:
    try:
        return len(data)
    except TypeError:
        return None


def _frame(data: Any) -> Any:
    """A frame Jupyter shows in full (polars cuts a long one to its first and last rows: these are few)."""
    try:
        import polars as pl
    except ImportError:
        return data
    if isinstance(data, pl.DataFrame):
        with pl.Config(tbl_rows=TABLE_ROWS, tbl_cols=-1, fmt_str_lengths=80, tbl_hide_dataframe_shape=True,
                       tbl_hide_column_data_types=True):  # as marimo's table: the columns and the rows
            return _html(data._repr_html_())
    if isinstance(data, list | dict):
        return _frame(pl.DataFrame(data))
    return data


def _tabs(element: Any) -> Any:
    """`mo.ui.tabs` as an ipywidgets Tab; choosing a tab sets the control's value (the tab's name)."""
    keys = list(element._tab_keys)
    box = _panels("Tab", keys, list(element._children))
    if element.value in keys:
        box.selected_index = keys.index(element.value)
    box.observe(lambda change: _set(element, str(change["new"])), names="selected_index")
    return box


def _label(element: Any) -> str:
    """The control's label as marimo rendered it (HTML), from its element's `data-label` attribute."""
    match = re.search(r"data-label='([^']*)'", element._inner_text)
    return (json.loads(html.unescape(match.group(1))) or "") if match else ""


def _text(label: Any) -> str:
    """A label as plain text: marimo's labels are HTML, or an `Html` (an accordion's `mo.md` titles)."""
    return html.unescape(re.sub(r"<[^>]*>", "", getattr(label, "text", label))).strip()


def _set(element: Any, frontend_value: Any) -> None:
    """Set a marimo control's value as its front end would (its on_change runs too), then, in a served kernel,
    re-run the cells that read it, as marimo would."""
    element._update(frontend_value)
    control_changed(element)


def control_widget(element: Any) -> Any:
    """The ipywidget for a marimo control, bound to it: a change sets the control's value in the kernel."""
    import ipywidgets as w

    kind = type(element).__name__
    args = element._component_args
    front = element._value_frontend
    label = _label(element)
    common = {"description": label, "description_allow_html": True, "style": {"description_width": "initial"}}
    if kind in ("dropdown", "radio", "multiselect"):
        options = list(args["options"])
        if kind == "multiselect":
            widget = w.SelectMultiple(options=options, value=tuple(front), **common)
            to_front = list
        elif kind == "radio":
            widget = w.RadioButtons(options=options, value=front or None, **common)
            to_front = _same
        else:  # "—" stands for no choice: ipywidgets reads a None value as "nothing selected", not as an option
            none = [("—", NO_CHOICE)] if args.get("allow-select-none") else []
            widget = w.Dropdown(options=none + [(o, o) for o in options], value=front[0] if front else NO_CHOICE,
                                **common)
            to_front = _listed
    elif kind == "slider":
        steps = list(args.get("steps") or [])
        if steps:
            widget = w.SelectionSlider(options=steps, value=steps[int(front)], **common)
            to_front = steps.index
        else:
            step = args.get("step") or 1  # marimo's default step is 1
            whole = all(isinstance(n, int) for n in (args["start"], args["stop"], step, front))
            widget = (w.IntSlider if whole else w.FloatSlider)(min=args["start"], max=args["stop"], step=step,
                                                               value=front, **common)
            to_front = _same
    elif kind == "number":
        whole = all(isinstance(n, int) for n in (args.get("step") or 1, front))
        bounds = {k: args[a] for k, a in (("min", "start"), ("max", "stop")) if args.get(a) is not None}
        kind_of = (w.BoundedIntText if whole else w.BoundedFloatText) if len(bounds) == 2 else (
            w.IntText if whole else w.FloatText)
        widget = kind_of(value=front, step=args.get("step") or 1, **bounds, **common)
        to_front = _same
    elif kind in ("switch", "checkbox"):
        widget = w.Checkbox(value=bool(front), indent=False, layout={"width": "auto"}, **common)  # the whole label
        to_front = bool
    elif kind in ("text", "text_area"):
        widget = (w.Textarea if kind == "text_area" else w.Text)(value=str(front), **common)
        to_front = str
    elif kind == "run_button":  # a click runs the cells it gates, as in marimo
        button = w.Button(description=_text(label) or "Run", button_style="primary", tooltip=GATE_NOTE,
                          layout={"width": "auto"})
        button.on_click(lambda _: button_pressed(element))
        _WIDGETS[id(element)] = button
        return button
    else:
        return w.HTML(f"<small>{html.escape(kind)} (a marimo control with no Jupyter form): "
                      f"{html.escape(repr(element.value))[:200]}</small>")
    widget.observe(lambda change: _set(element, to_front(change["new"])), names="value")
    if id(element) not in _WIDGETS:
        weakref.finalize(element, _WIDGETS.pop, id(element), None)
    _WIDGETS[id(element)] = widget
    return widget


def bound_widget(element: Any) -> Any:
    """The ipywidget last made for a marimo control (None if none was): set its value to change the control as a
    user would, or observe it."""
    return _WIDGETS.get(id(element))


def _same(value: Any) -> Any:
    return value


def _listed(value: Any) -> list[Any]:
    return [] if value is None or value == NO_CHOICE else [value]


# ---------------------------------------------------------------- marimo's own elements, as plain HTML

_TEX = re.compile(r"<marimo-tex[^>]*>(.*?)</marimo-tex>", re.S)
_ELEMENT = re.compile(r"<marimo-(stat|callout-output)((?:\s+[\w-]+='[^']*')*)\s*>\s*</marimo-\1>", re.S)
_ATTRIBUTE = re.compile(r"data-([\w-]+)='([^']*)'")
_CALLOUT = {"neutral": "#888", "info": "#3b82f6", "success": "#16a34a", "warn": "#d97706", "danger": "#dc2626"}


def plain_html(text: str) -> str:
    """marimo's HTML with its math, stats and callouts rewritten as HTML any notebook front end shows."""
    text = _TEX.sub(lambda m: m.group(1).replace("||(", r"\(").replace("||)", r"\)")
                    .replace("||[", r"\[").replace("||]", r"\]"), text)
    return _ELEMENT.sub(_element_html, text)


def _element_html(match: re.Match[str]) -> str:
    data = {name: json.loads(html.unescape(value)) for name, value in _ATTRIBUTE.findall(match.group(2))}
    if match.group(1) == "stat":
        label, value, caption = (html.escape(str(data.get(k) or "")) for k in ("label", "value", "caption"))
        return (f"<div style='display:inline-block;border:1px solid #ccc;border-radius:6px;padding:0.4em 0.8em'>"
                f"<div style='font-size:0.8em;opacity:0.7'>{label}</div>"
                f"<div style='font-size:1.5em;font-weight:600'>{value}</div>"
                f"<div style='font-size:0.8em;opacity:0.7'>{caption}</div></div>")
    color = _CALLOUT.get(str(data.get("kind")), "#888")
    return f"<div style='border-left:4px solid {color};padding:0.3em 0.8em'>{data.get('html', '')}</div>"
