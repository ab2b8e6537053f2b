"""A changed control re-runs the cells that read it, in a Jupyter kernel, and their outputs update in place.

marimo re-runs every cell that reads a control when the control changes; a Jupyter kernel runs a cell only when
asked. This module gives the exported notebooks marimo's behaviour back, inside the kernel, the way ipywidgets'
own `interactive_output` does it:

- every cell run into the history is recorded (`pre_run_cell`): its code and the names it defines and reads,
  from marimo's own compiler. A cell that reads a marimo control, or a name such a cell defined, is reactive:
  what it displays goes into an `ipywidgets.Output` shown where its first output would be;
- when a control's ipywidget changes (jupyter_outputs.py), `rerun_readers` runs again, in the order they first
  ran, the cells that read the control's name and then those that read what these define; each one's Output
  is emptied and filled with what the new run shows, what it prints, or its error.

JupyterLab routes a display update only to the cell whose request made it (never to another cell), so a widget
that holds the outputs is what can change them from a control's callback; a reactive cell's last value (its
`execute_result`) goes there too, through ipykernel's display-hook chain. Limits: a cell that showed nothing the
first time has no place to show a re-run in; the outputs of reactive cells are widget state, which JupyterLab
saves with the notebook only when asked (Settings > Save Widget State Automatically).

A *Run* button (`mo.ui.run_button`) is a real button in the kernel: a click re-runs the cells reading it with its
value True (`button_pressed`); the cells it gates keep their last result on a changed setting
(`filegram_kit.notebook_results`).
"""

from __future__ import annotations

import contextlib
import io
import traceback
import zlib
from dataclasses import dataclass
from typing import Any

_reactor: Reactor | None = None


@dataclass
class CellRun:
    """One notebook cell as last run: its code, what it defines and reads, and the Output its displays go to."""

    cell_id: str
    code: str
    defs: frozenset[str]
    refs: frozenset[str]
    reactive: bool
    out: Any = None  # ipywidgets.Output, made at the cell's first display


def names(code: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names a cell defines and reads, as marimo's compiler sees them (private `_names` excluded)."""
    from marimo._ast.compiler import compile_cell

    try:
        cell = compile_cell(code, cell_id="jupyter")
    except SyntaxError:  # IPython magics and the like: a cell marimo cannot read is never re-run
        return frozenset(), frozenset()
    return frozenset(cell.defs), frozenset(cell.refs)


def display_output(data: dict, metadata: dict | None = None) -> dict:
    """A display as an output of a notebook (and of an `ipywidgets.Output`'s list)."""
    return {"output_type": "display_data", "data": data, "metadata": metadata or {}}


class Reactor:
    """The kernel's record of cells, and the re-runs a changed control asks for."""

    def __init__(self, shell: Any):
        self.shell = shell
        self.cells: dict[str, CellRun] = {}  # in the order the cells first ran (Run All: marimo's order)
        self.derived: set[str] = set()  # names defined by reactive cells
        self.current: CellRun | None = None
        self.rerunning = False
        self._publish = shell.display_pub.publish

    def install(self) -> None:
        self.shell.events.register("pre_run_cell", self.pre_run_cell)
        self.shell.events.register("post_run_cell", self.post_run_cell)
        self.shell.display_pub.publish = self.publish
        if hasattr(self.shell.displayhook, "register_hook"):  # ipykernel's hook chain on execute_result
            self.shell.displayhook.register_hook(self.result_hook)

    def result_hook(self, msg: dict) -> dict | None:
        """A reactive cell's last value (its `execute_result`) goes to its Output too, so a re-run updates it."""
        record = self.current
        if record is None or not record.reactive:
            return msg
        self.publish(msg["content"]["data"], msg["content"].get("metadata"))
        return None

    def _reads_a_control(self, refs: frozenset[str]) -> bool:
        from marimo._plugins.ui._core.ui_element import UIElement

        namespace = self.shell.user_ns
        return bool(refs & self.derived) or any(isinstance(namespace.get(name), UIElement) for name in refs)

    def pre_run_cell(self, info: Any) -> None:
        if self.rerunning:
            return
        if not info.store_history:  # a front end's probe (completion, a variable viewer): not a notebook cell
            self.current = None
            return
        # JupyterLab names the cell; a runner that does not (nbclient) gets one per code text
        cell_id = getattr(info, "cell_id", None) or f"code-{zlib.crc32(info.raw_cell.encode()):08x}"
        defs, refs = names(info.raw_cell)
        reactive = self._reads_a_control(refs)
        if reactive:
            self.derived |= defs
        record = CellRun(str(cell_id), info.raw_cell, defs, refs, reactive)
        self.cells[record.cell_id] = record  # a cell run again keeps its place in the order
        self.current = record

    def post_run_cell(self, result: Any) -> None:
        if not self.rerunning:
            self.current = None

    def publish(self, data: dict, metadata: dict | None = None, *, transient: dict | None = None,
                update: bool = False, **kwargs: Any) -> Any:
        """The kernel's display publisher; a reactive cell's displays go to its Output."""
        record = self.current
        if record is None or not record.reactive or update or (transient or {}).get("display_id"):
            return self._publish(data, metadata, transient=transient, update=update, **kwargs)
        if record.out is None:
            if self.rerunning:  # it showed nothing the first time: there is no place to show this in
                return None
            from ipywidgets import Output

            record.out = Output()
            self._publish(record.out._repr_mimebundle_())
        record.out.outputs = (*record.out.outputs, display_output(data, metadata))
        return None

    def readers(self, changed: set[str]) -> list[CellRun]:
        """The recorded cells that read `changed`, then those reading what these define, in run order."""
        found: list[CellRun] = []
        names_changed = set(changed)
        for record in self.cells.values():
            if record is self.current:  # the cell that set the control from code is running: not again
                continue
            if record.refs & names_changed and not record.defs & changed:
                found.append(record)
                names_changed |= record.defs
        return found

    def rerun_readers(self, element: Any) -> list[str]:
        """Re-run the cells that read `element` (by any name bound to it); returns their cell ids."""
        bound = {name for name, value in self.shell.user_ns.items() if value is element and not name.startswith("_")}
        done = []
        for record in self.readers(bound):
            self._rerun(record)
            done.append(record.cell_id)
        return done

    def _rerun(self, record: CellRun) -> None:
        before, was_rerunning = self.current, self.rerunning  # a cell that set the control from code goes on
        self.current, self.rerunning = record, True  # showing its own outputs; a re-run may be inside another
        if record.out is not None:
            record.out.outputs = ()
        printed = io.StringIO()
        # the kernel would send a re-run's traceback to whichever request is current: it goes in the Output below
        outer = self.shell.__dict__.get("_showtraceback")  # set already when this re-run is inside another
        self.shell._showtraceback = _no_traceback
        try:
            with contextlib.redirect_stdout(printed):
                result = self.shell.run_cell(record.code, store_history=False, silent=False)
            if record.out is None:
                return
            if printed.getvalue():
                record.out.outputs = (*record.out.outputs,
                                      {"output_type": "stream", "name": "stdout", "text": printed.getvalue()})
            error = result.error_before_exec or result.error_in_exec
            if error is not None:
                record.out.outputs = (*record.out.outputs, {
                    "output_type": "error", "ename": type(error).__name__, "evalue": str(error),
                    "traceback": traceback.format_exception(type(error), error, error.__traceback__)})
        finally:
            if outer is None:
                del self.shell._showtraceback  # the shell's own method again
            else:
                self.shell._showtraceback = outer
            self.current, self.rerunning = before, was_rerunning


def _no_traceback(*args: Any) -> None:
    return None


def install_reactor(shell: Any) -> Reactor:
    """The kernel's reactor, installed once."""
    global _reactor
    if _reactor is None or _reactor.shell is not shell:
        _reactor = Reactor(shell)
        _reactor.install()
    return _reactor


def control_changed(element: Any) -> list[str]:
    """Called by a control's ipywidget after it set the control's value: re-run its readers, if served."""
    return _reactor.rerun_readers(element) if _reactor is not None else []


def button_pressed(element: Any) -> list[str]:
    """Called by a Run button's ipywidget on a click: its readers re-run with the button's value True, as
    marimo runs them (`notebook_results.KeptResults` reads that as a press)."""
    if _reactor is None:
        return []
    element._update(int(element._value_frontend or 0) + 1)  # marimo's front end counts clicks: True from 1 on
    try:
        return _reactor.rerun_readers(element)
    finally:
        element._value = False  # as marimo's runtime does once the cells it gates have run
