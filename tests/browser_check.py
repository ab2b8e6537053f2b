"""Open notebooks in `marimo edit`, press Run in the system's Chromium, and read back every cell's state.

The browser is the system's Chromium (`filegram_kit.report.export.find_browser`, the one PNG export uses),
driven by the `playwright` package with `executable_path=`: `playwright install` is never run, no browser
is downloaded. One `marimo edit --headless <folder>` serves every notebook of a folder, each opened in its
own page and kernel (`check_notebooks`): `jobs` run at a time while `preload` more load and start their
kernels (on 2 cores, one run plus one loading beats two runs at once).
The server's cwd is a scratch folder holding a `.marimo.toml` (marimo reads the first one found walking up
from the cwd, so a user's ~/.config/marimo settings play no part): nothing runs on open
(`auto_instantiate = false`, marimo's default) and nothing is saved (`autosave = "off"`).
`PYTHONPYCACHEPREFIX` points into scratch space too, which moves marimo's session cache
(`notebooks/__marimo__/session/`, written and read back in edit mode) and the bytecode out of the source tree.

How marimo's editor (0.25) shows a cell's state in the DOM, which is what this module reads:

- every cell is a `div.marimo-cell[data-cell-id]`; its status icon `[data-testid=cell-status]` has
  `data-status` `outdated`/`stale` before it ran, `queued` and `running` while it runs, `idle` after;
- `.marimo-cell.has-error`: the kernel sent the cell an error output (an exception, a name defined twice,
  a cycle ...); the output area `#output-<id>` then holds a `[role=alert]` with the error's type and message;
- `.marimo-cell.stopped`: halted by `mo.stop` or below a cell that was (an "ancestor stopped" output), not
  an error; the cell calling `mo.stop(..., output)` shows that output and has neither class;
- `.marimo-cell.needs-run`: still stale after the run (edited, interrupted, never ran).

Run is the bottom-right run button (`Run all stale cells`, Ctrl-Shift-R): with nothing run yet every cell is
stale, so it runs them all, as marimo's `Re-run all cells` would.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

MARIMO = Path(sys.executable).with_name("marimo")
RUN_TIMEOUT_S = 240.0  # per notebook, from pressing Run to the last cell finishing
START_TIMEOUT_S = 120.0  # server up, page loaded, kernel connected (slow when the 2 cores are busy)
POLL_S = 1.0
RUN_BUTTON = '[data-testid="chrome-controls-bottom-right"] [data-testid="run-button"]'
MARIMO_CONFIG = """\
# written by tests/browser_check.py; marimo reads the .marimo.toml of its cwd before the user's config
[runtime]
auto_instantiate = false
[save]
autosave = "off"
"""
CELL_STATUS_JS = """() => Array.from(document.querySelectorAll('.marimo-cell[data-cell-id]')).map(cell => {
  const status = cell.querySelector('[data-testid="cell-status"]');
  return [status ? status.getAttribute('data-status') || '' : '', Array.from(cell.classList)];
})"""  # polled while the notebook runs: attributes only, no innerText (that would lay out every output)
CELL_STATES_JS = """() => Array.from(document.querySelectorAll('.marimo-cell[data-cell-id]')).map(cell => {
  const id = cell.getAttribute('data-cell-id');
  const status = cell.querySelector('[data-testid="cell-status"]');
  const code = cell.querySelector('.cm-content');
  const output = document.getElementById('output-' + id);
  const consoleArea = cell.querySelector('[data-testid="console-output-area"]');
  return {cell_id: id, name: cell.getAttribute('data-cell-name') || '',
          status: status ? status.getAttribute('data-status') || '' : '',
          classes: Array.from(cell.classList), code: code ? code.innerText : '',
          output: output ? output.innerText : '', console: consoleArea ? consoleArea.innerText : '',
          alert: !!(output && output.querySelector('[role="alert"]'))};
})"""  # read once, when the run is over


def is_busy(status: str) -> bool:
    return status in ("queued", "running")


def is_pending(status: str, classes: Sequence[str]) -> bool:  # not run (yet): marked stale, or its icon says so
    return "needs-run" in classes or status in ("outdated", "stale")


class BrowserCheckUnavailable(RuntimeError):
    """No browser (or no driver) to run the check with; the message names the fix."""


@dataclass(frozen=True)
class CellState:
    """One cell as the editor shows it."""

    index: int
    cell_id: str
    name: str
    status: str
    classes: tuple[str, ...]
    code: str
    output: str
    console: str
    alert: bool

    @property
    def errored(self) -> bool:
        return "has-error" in self.classes

    @property
    def stopped(self) -> bool:
        return "stopped" in self.classes

    @property
    def busy(self) -> bool:
        return is_busy(self.status)

    @property
    def pending(self) -> bool:
        return is_pending(self.status, self.classes)

    @property
    def first_line(self) -> str:
        return next((line.strip() for line in self.code.splitlines() if line.strip()), "")

    def describe(self, *, with_output: bool = False) -> str:
        name = f" `{self.name}`" if self.name and self.name != "_" else ""
        text = f"cell {self.index} ({self.cell_id}{name}, status {self.status or '?'}): {self.first_line!r}"
        if with_output:
            text += f"\n    output: {self.output.strip()[:1500]}"
            if self.console.strip():
                text += f"\n    console: {self.console.strip()[-1500:]}"
        return text


@dataclass(frozen=True)
class NotebookRun:
    """Every cell of one notebook after Run, and how long the run took."""

    notebook: Path
    cells: tuple[CellState, ...]
    seconds: float

    @property
    def errors(self) -> list[CellState]:
        return [c for c in self.cells if c.errored]

    @property
    def not_run(self) -> list[CellState]:
        return [c for c in self.cells if c.pending]

    def error_report(self) -> str:
        return f"{self.notebook.name}: {len(self.errors)} error cell(s) after Run all\n" + "\n".join(
            c.describe(with_output=True) for c in self.errors)


def chromium_path() -> str:
    """The system browser PNG export uses; BrowserCheckUnavailable naming `make setup` when there is none."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as err:
        raise BrowserCheckUnavailable("the browser check needs the `playwright` package (dev extra): run "
                                      "`make setup`") from err
    from filegram_kit.report.export import BrowserNotFoundError, find_browser

    try:
        return find_browser()
    except BrowserNotFoundError as err:
        fix = "" if "make setup" in str(err) else " (`make setup` installs Debian's chromium when none is found)"
        raise BrowserCheckUnavailable(f"{err}{fix}") from err


@contextmanager
def chromium(executable: str | None = None) -> Iterator[object]:
    """One browser context of a headless system Chromium under playwright, closed on exit (also on errors).

    Every notebook's page opens in this one context (one HTTP cache for marimo's frontend bundle).
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable or chromium_path(), headless=True)
        try:
            yield browser.new_context(viewport={"width": 1400, "height": 1000})
        finally:
            browser.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalServer:
    """A server process on 127.0.0.1 for one check, cwd `workdir`, its output in `log_path`: started in a
    session of its own and healthy once `health_url` answers 200; leaving the `with` block stops it and every
    process it started. Subclasses say how it starts (`command`) and what a failure to start raises."""

    name = "server"
    unavailable: type[Exception] = RuntimeError  # raised when the process exits before it answers
    too_slow: type[Exception] = TimeoutError  # raised when it does not answer in START_TIMEOUT_S

    def __init__(self, folder: Path, workdir: Path, env: dict, log_name: str):
        self.folder, self.workdir = Path(folder).resolve(), Path(workdir)
        self.env, self.port = env, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = self.workdir / log_name
        self.proc: subprocess.Popen | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def health_url(self) -> str:
        raise NotImplementedError

    def __enter__(self):
        self.workdir.mkdir(parents=True, exist_ok=True)
        command = self.command()
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(command, cwd=self.workdir, env=self.env, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never via a proxy
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise self.unavailable(f"{self.name} exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with direct.open(self.health_url(), timeout=5) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                pass
            time.sleep(POLL_S)
        raise self.too_slow(f"{self.name} did not answer on {self.url} within {START_TIMEOUT_S:.0f} s:\n"
                            f"{self.log_tail()}")

    def stop(self) -> None:
        """SIGTERM to the server's process group, SIGKILL after 15 s; then SIGKILL to every process of the
        server's tree seen just before (a kernel may run in a session of its own, out of the group)."""
        if self.proc is None:
            return
        tree = self.tree()
        if self.proc.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.proc.wait(timeout=10)
        self._signal(signal.SIGKILL)
        for pid in still_running(tree):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while still_running(tree) and time.monotonic() < deadline:  # SIGKILL is delivered asynchronously
            time.sleep(0.1)

    def _signal(self, sig: int) -> None:
        with suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return "(no server log)"

    def tree(self) -> dict[int, int]:
        """The server and its live descendants (kernels, helpers) as pid -> start time; {} without /proc."""
        return process_tree(self.proc.pid) if self.proc is not None else {}


class MarimoEditServer(LocalServer):
    """`marimo edit --headless` on a folder of notebooks, cwd `workdir`: every notebook of it opens (`url_for`)
    in a kernel of its own, closed `session_ttl` s after its page; leaving the `with` block stops them all."""

    name = "marimo edit"

    def __init__(self, folder: Path, workdir: Path, *, args: Sequence[str] = (), env: dict | None = None,
                 pycache: Path | None = None, session_ttl: int = 2):
        workdir = Path(workdir)
        env = {**os.environ, **(env or {}), "PYTHONPYCACHEPREFIX": str(pycache or workdir / "pycache")}
        # under a fresh prefix nothing is compiled yet: let the server and kernels write bytecode there, or every
        # kernel would compile marimo, polars, plotly ... from source again (about 6 s per kernel on 2 cores)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        super().__init__(folder, workdir, env, "marimo-edit.log")
        self.args, self.session_ttl = list(args), session_ttl

    def url_for(self, notebook: Path) -> str:
        return f"{self.url}/?file={quote(str(Path(notebook).resolve().relative_to(self.folder)))}"

    def health_url(self) -> str:
        return self.url + "/health"

    def command(self) -> list[str]:
        (self.workdir / ".marimo.toml").write_text(MARIMO_CONFIG, encoding="utf-8")
        cmd = [str(MARIMO), "edit", "--headless", "--no-token", "--host", "127.0.0.1", "--port", str(self.port),
               "--skip-update-check", "--no-sandbox", "--session-ttl", str(self.session_ttl), str(self.folder)]
        return cmd + (["--", *self.args] if self.args else [])


def _process_table() -> dict[int, tuple[int, str, int]]:
    """pid -> (parent pid, state, start time) of every process, from /proc (Linux); {} elsewhere."""
    table = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # state, ppid, pgrp, ... starttime is the 20th
        except OSError:
            continue
        table[int(stat.parent.name)] = (int(fields[1]), fields[0], int(fields[19]))
    return table


def process_tree(root: int) -> dict[int, int]:
    table = _process_table()
    tree, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in table and table[pid][1] != "Z":
            tree[pid] = table[pid][2]
        todo += [child for child, (ppid, _, _) in table.items() if ppid == pid]
    return tree


def still_running(tree: dict[int, int]) -> list[int]:
    """The processes of `tree` still there (same pid and start time, not a zombie)."""
    table = _process_table()
    return [pid for pid, start in tree.items() if pid in table and table[pid][2] == start and table[pid][1] != "Z"]


def cell_states(page) -> tuple[CellState, ...]:
    rows = page.evaluate(CELL_STATES_JS)
    return tuple(CellState(index=i, cell_id=r["cell_id"], name=r["name"], status=r["status"],
                           classes=tuple(r["classes"]), code=r["code"], output=r["output"], console=r["console"],
                           alert=r["alert"]) for i, r in enumerate(rows))


class NotebookWatch:
    """One notebook in flight: opened in a page, Run pressed once the kernel is there, polled until done.

    `step()` never blocks for long, so one thread can watch several pages: it returns None while the notebook
    is loading or running, the NotebookRun once no cell is queued, running or stale (two polls in a row), and
    raises TimeoutError naming the stuck cells. A run that leaves a cell stale (interrupted, never scheduled)
    also ends once nothing has been busy for 5 s after something was; those cells are `NotebookRun.not_run`.
    """

    def __init__(self, context, server: MarimoEditServer, notebook: Path, timeout: float = RUN_TIMEOUT_S):
        self.server, self.notebook, self.timeout = server, Path(notebook), timeout
        self.page = context.new_page()
        self.started: float | None = None
        self.deadline = time.monotonic() + START_TIMEOUT_S
        self.seen_busy, self.quiet_since, self.calm = False, None, 0
        try:
            self.page.goto(server.url_for(notebook), wait_until="domcontentloaded", timeout=START_TIMEOUT_S * 1000)
        except BaseException:
            self.page.close()
            raise

    @property
    def running(self) -> bool:
        return self.started is not None

    def step(self, *, may_start: bool = True) -> NotebookRun | None:
        now = time.monotonic()
        if self.started is None:
            return self._press_run_when_ready(now, may_start)
        states = self.page.evaluate(CELL_STATUS_JS)
        busy = any(is_busy(status) for status, _ in states)
        self.seen_busy |= busy
        self.quiet_since = None if busy else (self.quiet_since or now)
        settled = states and not busy and not any(is_pending(status, classes) for status, classes in states)
        self.calm = self.calm + 1 if settled else 0
        if self.calm >= 2 or (self.seen_busy and self.quiet_since and now - self.quiet_since > 5):
            return NotebookRun(self.notebook, cell_states(self.page), now - self.started)
        if now > self.deadline:
            stuck = "\n".join(c.describe() for c in cell_states(self.page) if c.busy or c.pending) or "(none)"
            never = "" if self.seen_busy else " (no cell ever started: did the click reach the editor?)"
            raise TimeoutError(f"{self.notebook.name}: cells still queued/running/stale {self.timeout:.0f} s after "
                               f"Run all{never}:\n{stuck}\nserver log:\n{self.server.log_tail()}")
        return None

    def _press_run_when_ready(self, now: float, may_start: bool) -> None:
        """The run button turns yellow once the kernel is connected and the cells are stale: press it then
        (when `may_start`; a page that is ready waits for its turn without a deadline)."""
        button = self.page.locator(RUN_BUTTON + ".yellow")
        if button.count():
            if may_start:
                button.click()
                self.started, self.deadline = now, now + self.timeout
        elif now > self.deadline:
            cells = "\n".join(c.describe() for c in cell_states(self.page)) or "(no cells rendered)"
            raise TimeoutError(f"{self.notebook.name}: the editor showed no runnable cells within "
                               f"{START_TIMEOUT_S:.0f} s (kernel not connected?)\ncells:\n{cells}\n"
                               f"server log:\n{self.server.log_tail()}")

    def close(self) -> None:
        self.page.close()


def check_notebooks(context, server: MarimoEditServer, notebooks: Sequence[Path], *, jobs: int = 1,
                    preload: int = 1, timeout: float = RUN_TIMEOUT_S) -> dict[Path, NotebookRun | Exception]:
    """Run all in `jobs` notebooks at a time, with `preload` more opened ahead (their kernels start meanwhile);
    each notebook's NotebookRun, or the exception that ended it (one notebook failing does not stop the rest)."""
    todo, flying, done = list(notebooks), [], {}
    while todo or flying:
        while todo and len(flying) < max(1, jobs) + max(0, preload):
            notebook = todo.pop(0)
            try:
                flying.append(NotebookWatch(context, server, notebook, timeout))
            except Exception as err:  # the page did not load
                done[notebook] = err
        for watch in list(flying):
            try:
                result = watch.step(may_start=sum(w.running for w in flying) < max(1, jobs))
            except Exception as err:
                result = err
            if result is not None:
                done[watch.notebook] = result
                flying.remove(watch)
                watch.close()
        time.sleep(POLL_S)
    return {nb: done[nb] for nb in notebooks}


# -- interacting with a notebook after its run --------------------------------------------------------------

DEEP_TEXT_JS = """(id) => {
  const parts = [];
  const walk = node => {
    if (node.nodeType === 3) parts.push(node.textContent);
    if (node.shadowRoot) walk(node.shadowRoot);
    for (const child of node.childNodes) walk(child);
  };
  const output = document.getElementById('output-' + id);
  if (output) walk(output);
  return parts.join(' ').replace(/\\s+/g, ' ');
}"""  # marimo draws tables, callouts and figures inside shadow roots, which innerText does not enter
PLOT_BOXES_JS = """() => {
  const found = [];
  const walk = (node, cell) => {
    if (node.nodeType !== 1 && node.nodeType !== 11) return;
    if (node.classList && node.classList.contains('js-plotly-plot')) {  // the drawing, not its clipping box
      const svg = node.querySelector('svg.main-svg') || node;
      const r = svg.getBoundingClientRect(), c = cell.getBoundingClientRect();
      found.push({left: r.left, right: r.right, width: r.width, cell_left: c.left, cell_right: c.right,
                  window: document.documentElement.clientWidth});
    }
    if (node.shadowRoot) walk(node.shadowRoot, cell);
    for (const child of node.children || []) walk(child, cell);
  };
  document.querySelectorAll('.marimo-cell[data-cell-id]').forEach(cell => walk(cell, cell));
  return found;
}"""


def output_text(page, cell_id: str) -> str:
    """Everything a cell's output shows as text, inside marimo's shadow roots too (tables, callouts)."""
    return page.evaluate(DEEP_TEXT_JS, cell_id)


def cell_showing(page, text: str) -> CellState:
    """The one cell whose output shows `text` (read through shadow roots); AssertionError when none does."""
    for cell in cell_states(page):
        if text in output_text(page, cell.cell_id):
            return cell
    raise AssertionError(f"no cell shows {text!r}")


def plot_boxes(page) -> list[dict]:
    """Every plotly figure's drawing (its main SVG, which a fixed-width figure makes wider than the box that
    clips it) beside its cell's box (px), and the window's width."""
    return page.evaluate(PLOT_BOXES_JS)


WATCH_BUSY_JS = """() => {
  window.__filegramBusySeen = false;
  if (window.__filegramBusyWatch) window.__filegramBusyWatch.disconnect();
  window.__filegramBusyWatch = new MutationObserver(changes => {
    for (const change of changes) {
      const node = change.target.nodeType === 1 ? change.target : change.target.parentElement;
      if (change.type === 'attributes') {
        const status = node.getAttribute('data-status');
        if (status === 'queued' || status === 'running') window.__filegramBusySeen = true;
      } else if (node && node.closest && node.closest('[id^="output-"]')) {
        window.__filegramBusySeen = true;  // an output changed: a cell ran, even if too fast to show as running
      }
    }
  });
  window.__filegramBusyWatch.observe(document.body, {subtree: true, childList: true, characterData: true,
                                                     attributes: true, attributeFilter: ['data-status']});
}"""  # a cell that runs between two polls (React may never draw it as running) is still seen


def watch_cells(page) -> None:
    """Note from now on any cell that turns queued or running (call before the action `settle` waits for)."""
    page.evaluate(WATCH_BUSY_JS)


def settle(page, *, timeout: float = RUN_TIMEOUT_S, start_within: float = 10.0) -> float | None:
    """Wait until the cells an interaction set off have run: some cell busy (polled, or noted since `watch_cells`),
    then none for two polls. Seconds waited, or None when no cell got busy within `start_within` s (nothing was
    set off); TimeoutError naming the busy cells."""
    started, seen, calm = time.monotonic(), False, 0
    while True:
        now = time.monotonic()
        states = page.evaluate(CELL_STATUS_JS)
        busy = any(is_busy(status) for status, _ in states)
        seen |= busy or bool(page.evaluate("() => window.__filegramBusySeen === true"))
        calm = 0 if busy else calm + 1
        if seen and calm >= 2:
            return now - started
        if not seen and now - started > start_within:
            return None
        if now - started > timeout:
            stuck = "\n".join(c.describe() for c in cell_states(page) if c.busy)
            raise TimeoutError(f"cells still busy {timeout:.0f} s after an interaction:\n{stuck}")
        time.sleep(POLL_S / 4)


def run_notebook(context, server: MarimoEditServer, notebook: Path) -> tuple[object, NotebookRun]:
    """Open `notebook`, Run all, and return its page (left open, for interacting) and the run."""
    watch = NotebookWatch(context, server, notebook)
    while (run := watch.step()) is None:
        time.sleep(POLL_S)
    return watch.page, run
