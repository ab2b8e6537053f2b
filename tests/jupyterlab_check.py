"""Open exported notebooks in JupyterLab, Run All in the system's Chromium, and read back what a user sees.

One `jupyter lab` serves a folder of .ipynb files (`JupyterLabServer`), with its own config, runtime, settings
and workspace folders in scratch space (a user's JupyterLab settings play no part) and the app exposed to the
page (`--LabApp.expose_app_in_browser`: `window.jupyterapp`), so the check drives JupyterLab's own commands:
`notebook:run-all-cells`, then it waits for every code cell to have run and the kernel to be idle.
The notebook renders every cell (settings: `windowingMode` "none"; JupyterLab's default leaves cells out of
the DOM until scrolled to), and news and update checks are off.

What `check_notebook` reads, per code cell: its outputs in the notebook model (type, MIME types, error text)
and in the DOM (the rendered text, its size, whether it holds a figure, a table or a control, and any of
marimo's own elements, which JupyterLab leaves as empty space), every
"Error displaying widget" message, and every request the page made to a host other than this server (they
are answered with an error, so a CDN script fails here as it would offline). Then one interaction per explorer
(its "next" button) and one on the first control that can take another value (a dropdown, else a multi-select,
else a checkbox), each followed by reading the kernel's state, so a widget that shows but does not reach the
kernel fails too; after the control, the outputs of the cells that read it must have changed on the page
(jupyter_reactive.py re-ran them).
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlparse

from tests.browser_check import LocalServer

JUPYTER = Path(sys.executable).with_name("jupyter")
START_TIMEOUT_S = 120.0
OPEN_TIMEOUT_S = 180.0  # page loaded, kernel started and idle
RUN_TIMEOUT_S = 600.0
SETTLE_S = 3.0  # after the last cell: widgets and figures draw
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                        "checkForUpdates": False},
    "@jupyterlab/extensionmanager-extension/plugin.jupyterlab-settings": {"enabled": False},
}
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", ""}

READY_JS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const kernel = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!(w && w.content && w.context && w.context.isReady && kernel && kernel.status === 'idle'
            && kernel.connectionStatus === 'connected');
}"""
RUN_ALL_JS = "() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); return true; }"
DONE_JS = """(base) => {
  const w = window.jupyterapp.shell.currentWidget;
  const code = w.content.widgets.filter(c => c.model.type === 'code' && c.model.sharedModel.getSource().trim());
  const running = code.filter(c => c.promptNode && c.promptNode.textContent.includes('*')).length;
  const ran = code.filter(c => (c.model.executionCount || 0) > base).length;
  const errored = code.some(c => c.model.outputs.toJSON().some(o => o.output_type === 'error'));
  const last = Math.max(0, ...code.map(c => c.model.executionCount || 0));
  return {ran, code: code.length, running, errored, last, status: w.sessionContext.session.kernel.status};
}"""
CELLS_JS = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  return w.content.widgets.map((c, index) => {
    if (c.model.type !== 'code') return null;
    const outputs = c.model.outputs.toJSON();
    const nodes = Array.from(c.outputArea.node.querySelectorAll(
      ':scope > .jp-OutputArea-child > .jp-OutputArea-output'));  // the cell's own, not a widget's inside it
    return {
      index, source: c.model.sharedModel.getSource(), executionCount: c.model.executionCount,
      outputs: outputs.map(o => ({type: o.output_type, mimes: Object.keys(o.data || {}),
                                  error: o.output_type === 'error' ? `${o.ename}: ${o.evalue}` : ''})),
      rendered: nodes.map(n => {
        const box = n.getBoundingClientRect();
        return {text: n.innerText.trim().slice(0, 300), height: box.height,
                media: n.querySelectorAll('svg, canvas, img, video, audio, iframe').length,
                table: n.querySelectorAll('table').length,
                controls: n.querySelectorAll('input, select, button, textarea').length,
                plotly: n.querySelectorAll('.js-plotly-plot').length,
                // marimo's own elements (<marimo-table>, <marimo-dropdown> ...): only marimo's front end draws them
                marimo: [...new Set(Array.from(n.querySelectorAll('*')).map(e => e.tagName.toLowerCase())
                                    .filter(t => t.startsWith('marimo-')))]};
      }),
    };
  }).filter(c => c !== null);
}"""
KERNEL_JS = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({code, silent: false, store_history: false});
  let text = '';
  future.onIOPub = msg => {
    const c = msg.content;
    if (c.data && c.data['text/plain']) text += c.data['text/plain'];
    else if (c.name === 'stdout') text += c.text;
    else if (c.ename) text += `${c.ename}: ${c.evalue}`;
  };
  await future.done;
  return text;
}"""
# every explorer's state and every marimo control's value, as the kernel holds them
STATE_CODE = """
import gc as _gc, json as _json
def _filegram_state():
    import anywidget
    from marimo._plugins.ui._core.ui_element import UIElement
    def of(kind):
        found = []
        for o in _gc.get_objects():
            try:
                if isinstance(o, kind):
                    found.append(o)
            except ReferenceError:  # a dead weak proxy
                pass
        return found
    widgets = {f"{type(o).__name__}@{id(o)}": {k: repr(v)[:200] for k, v in sorted(o.get_state().items())
               if not k.startswith("_")} for o in of(anywidget.AnyWidget)}
    controls = {f"{type(o).__name__}@{id(o)}": repr(o.value)[:200] for o in of(UIElement)}
    return _json.dumps({"widgets": widgets, "controls": controls})
print(_filegram_state())
"""
NEXT_BUTTONS = "button[title^='next']"  # the explorers' step buttons (timeline.js, items.js)
EXPLORERS = ".fg-timeline, .fg-items"
CONTROLS = ((".jp-OutputArea-output .widget-dropdown select", "dropdown"),  # ipywidgets' own markup
            (".jp-OutputArea-output .widget-select-multiple select", "multiselect"),
            (".jp-OutputArea-output .widget-checkbox input[type=checkbox]", "checkbox"))


class JupyterLabUnavailable(RuntimeError):
    """JupyterLab could not start here (named in the message)."""


@dataclass
class CellView:
    """One code cell after Run All: what the model holds and what the page shows."""

    index: int
    source: str
    execution_count: int | None
    outputs: list[dict]
    rendered: list[dict]

    @property
    def first_line(self) -> str:
        return next((line for line in self.source.splitlines() if line.strip()), "")[:80]

    @property
    def errors(self) -> list[str]:
        return [o["error"] for o in self.outputs if o["type"] == "error"]

    def marimo_elements(self) -> list[str]:
        """marimo's own custom elements in the outputs: JupyterLab draws nothing for them."""
        return sorted({tag for r in self.rendered for tag in r["marimo"]})

    def empty_outputs(self) -> list[dict]:
        """Outputs the page shows as nothing: no text, no figure, no table, no control, or no height."""
        return [r for r in self.rendered if r["height"] < 4 or not (
            r["text"] or r["media"] or r["table"] or r["controls"] or r["plotly"])]


@dataclass
class LabRun:
    notebook: str
    cells: list[CellView]
    seconds: float
    widget_errors: list[str]
    outside_requests: list[str]
    explorers: int = 0
    explorer_changes: list[str] = field(default_factory=list)
    control_change: str | None = None
    outputs_updated: list[int] = field(default_factory=list)  # cells whose output changed with the dropdown

    def problems(self) -> list[str]:
        found = [f"cell {c.index} ({c.first_line}): {e}" for c in self.cells for e in c.errors]
        found += [f"cell {c.index} ({c.first_line}): not run" for c in self.cells
                  if c.source.strip() and c.execution_count is None]
        found += [f"cell {c.index} ({c.first_line}): {len(c.empty_outputs())} empty output(s) of "
                  f"{len(c.rendered)}" for c in self.cells if c.empty_outputs()]
        found += [f"cell {c.index} ({c.first_line}): marimo elements JupyterLab cannot draw: "
                  f"{', '.join(c.marimo_elements())}" for c in self.cells if c.marimo_elements()]
        found += [f"widget: {text}" for text in self.widget_errors]
        found += [f"request to another host: {url}" for url in self.outside_requests]
        if len(self.explorer_changes) < self.explorers:
            found.append(f"{self.explorers} explorer(s), but clicking 'next' changed the kernel's state of "
                         f"{len(self.explorer_changes)}")
        if self.control_change == "":
            found.append("changing a control's widget changed no marimo control's value in the kernel")
        elif self.control_change and not self.outputs_updated:
            found.append(f"after {self.control_change} no cell's output changed (its readers did not re-run)")
        return found


class JupyterLabServer(LocalServer):
    """`jupyter lab` on `folder`, its config and state in `workdir`; stopped on leaving the `with` block."""

    name = "jupyter lab"
    unavailable = too_slow = JupyterLabUnavailable

    def __init__(self, folder: Path, workdir: Path, *, env: dict | None = None):
        workdir = Path(workdir)
        super().__init__(folder, workdir, {**os.environ, **(env or {}), **{name: str(workdir / sub) for name, sub in (
            ("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("JUPYTERLAB_SETTINGS_DIR", "settings"), ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"))}},
            "jupyterlab.log")
        self.token = secrets.token_hex(16)

    def url_for(self, notebook: Path) -> str:
        relative = quote(str(Path(notebook).resolve().relative_to(self.folder)))
        return f"{self.url}/lab/tree/{relative}?token={self.token}&reset"

    def health_url(self) -> str:
        return f"{self.url}/api/status?token={self.token}"

    def command(self) -> list[str]:
        if not JUPYTER.exists():
            raise JupyterLabUnavailable(f"{JUPYTER} is missing: run `make setup`")
        for name, value in SETTINGS.items():
            path = self.workdir / "settings" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value), encoding="utf-8")
        return [str(JUPYTER), "lab", "--no-browser", "--ip", "127.0.0.1", "--port", str(self.port),
                f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.folder}",
                "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=", "--ServerApp.allow_root=True"]


def _kernel_state(page) -> dict:
    text = page.evaluate(KERNEL_JS, STATE_CODE)
    try:
        return json.loads(text.strip().splitlines()[-1])
    except (ValueError, IndexError) as err:
        raise AssertionError(f"the kernel's state could not be read: {text[:500]!r}") from err


def check_notebook(context, server: JupyterLabServer, notebook: Path, *, timeout: float = RUN_TIMEOUT_S,
                   interact: bool = True, rounds: int = 1,
                   then: Callable[[Any, LabRun], None] | None = None) -> LabRun:
    """Open `notebook` in JupyterLab, Run All (`rounds` times in the same kernel), wait for the kernel, read
    every cell; then interact, and call `then(page, run)` while the page is still open."""
    outside: list[str] = []
    page = context.new_page()

    def route(r) -> None:
        host = urlparse(r.request.url).hostname or ""
        if r.request.url.startswith(("data:", "blob:")) or host in LOCAL_HOSTS:
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    try:
        page.goto(server.url_for(notebook), wait_until="domcontentloaded", timeout=OPEN_TIMEOUT_S * 1000)
        page.wait_for_function(READY_JS, timeout=OPEN_TIMEOUT_S * 1000, polling=500)
        start, base = time.monotonic(), 0
        for _ in range(rounds):  # a second Run All in the same kernel: every cell runs again
            page.evaluate(RUN_ALL_JS)
            base = _wait_for_run(page, notebook, base, start + timeout, timeout)
        seconds = time.monotonic() - start
        page.wait_for_timeout(SETTLE_S * 1000)
        cells = [CellView(c["index"], c["source"], c["executionCount"], c["outputs"], c["rendered"])
                 for c in page.evaluate(CELLS_JS)]
        widget_errors = page.locator("text=Error displaying widget").all_inner_texts()
        run = LabRun(notebook.name, cells, seconds, widget_errors, outside)
        if interact:
            _interact(page, run)
        if then is not None:
            then(page, run)
        return run
    finally:
        page.close()


def _wait_for_run(page, notebook: Path, base: int, deadline: float, timeout: float) -> int:
    """Wait until every code cell ran after execution count `base` (or one failed); the last count."""
    while True:
        state = page.evaluate(DONE_JS, base)
        idle = not state["running"] and state["status"] == "idle"
        if idle and (state["ran"] == state["code"] or state["errored"]):
            return state["last"]
        if time.monotonic() > deadline:
            raise TimeoutError(f"{notebook.name}: {state['ran']} of {state['code']} cells ran in "
                               f"{timeout:.0f} s (kernel {state['status']})")
        time.sleep(1.0)


def _interact(page, run: LabRun) -> None:
    """Click each explorer's 'next' button and change one control; record what changed in the kernel."""
    explorers = page.locator(EXPLORERS)
    run.explorers = explorers.count()
    for i in range(run.explorers):
        before = _kernel_state(page)["widgets"]
        explorers.nth(i).locator(NEXT_BUTTONS).first.click()
        page.wait_for_timeout(1500)
        after = _kernel_state(page)["widgets"]
        changed = [f"{name}: {key}" for name, state in after.items() for key, value in state.items()
                   if before.get(name, {}).get(key) != value]
        if changed:
            run.explorer_changes.append(", ".join(changed[:4]))
    for selector, kind in CONTROLS:  # the first control that can take another value, changed as a user would
        elements = page.locator(selector)
        for i in range(elements.count()):
            before, shown = _kernel_state(page)["controls"], _texts(page)
            if not _change(elements.nth(i), kind):
                continue
            _wait_idle(page)
            after = _kernel_state(page)["controls"]
            changed = [f"{name}: {before[name]} -> {value}" for name, value in after.items()  # re-runs make new
                       if name in before and before[name] != value]                         # ones: not those
            run.control_change = f"{kind} {changed[0]}" if changed else ""
            now = _texts(page)
            run.outputs_updated = [index for index, text in now.items() if shown.get(index) != text]
            return


def change_control(page, selector: str, kind: str) -> None:
    """Give the first control matching `selector` another value, as a user would, and wait for the re-runs."""
    assert _change(page.locator(selector).first, kind), f"{selector}: no other value to take"
    _wait_idle(page)


def press(page, label: str) -> None:
    """Click the button named `label` (a marimo Run button is a real ipywidgets button in a kernel) and wait."""
    page.get_by_role("button", name=label).first.click()
    _wait_idle(page)


def shown_texts(page) -> dict[int, str]:
    """Each code cell's shown output text, by cell index (inside widget outputs too)."""
    return _texts(page)


def _change(element, kind: str) -> bool:
    """Give a control's widget another value (False where it has none to take)."""
    if kind == "checkbox":
        element.click()
        return True
    options = element.locator("option").all_inner_texts()
    chosen = element.evaluate("s => Array.from(s.selectedOptions).map(o => o.text)")
    if kind == "dropdown":
        target = next((o for o in options if o not in chosen), None)
    else:  # a multi-select: only its first option, or its first two
        target = options[:1] if chosen != options[:1] else options[:2]
    if not target or target == chosen:
        return False
    element.select_option(label=target)
    return True


def _texts(page) -> dict[int, str]:
    """Each code cell's shown output text, by cell index."""
    return {c["index"]: "\n".join(r["text"] for r in c["rendered"]) for c in page.evaluate(CELLS_JS)}


def _wait_idle(page, timeout: float = 120.0) -> None:
    """Until the kernel has been idle for a second (a changed control re-runs cells in the kernel)."""
    deadline, calm = time.monotonic() + timeout, 0
    while calm < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(500)
        idle = page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status")
        calm = calm + 1 if idle == "idle" else 0
    page.wait_for_timeout(SETTLE_S * 1000)
