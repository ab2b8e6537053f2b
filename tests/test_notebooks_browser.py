"""Every numbered notebook opens in `marimo edit`, and after Run all in a real browser no cell shows an error.

The script runs (tests/test_notebooks.py) cannot see what only the editor does: the kernel of `marimo edit`,
`mo.app_meta().mode == "edit"`, buttons that wait to be pressed. Here one `marimo edit --headless notebooks/
-- --smoke` (and FILEGRAM_SMOKE=1, so `autorun_mode()` is True and the gated cells run too) serves them all;
each is opened in the system's headless Chromium, Run is pressed and every cell's state is read from the DOM
(tests/browser_check.py says which classes mean what). One notebook runs while the next one's page and
kernel start. The first tests prove the detector on toy notebooks: it finds an error cell, does not count
`mo.stop`, and a run that never ends times out naming the cell. `make check-notebooks` runs this file (CI
too); `make test` skips it (tests/notebook_sets.py).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests import browser_check
from tests.browser_check import BrowserCheckUnavailable, MarimoEditServer, check_notebooks, still_running
from tests.notebook_sets import all_notebooks

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.py"))
pytestmark = pytest.mark.skipif(not all_notebooks(), reason="the browser check is `make check-notebooks` (CI runs it)")


NOTEBOOK = """import marimo

app = marimo.App()
{cells}

if __name__ == "__main__":
    app.run()
"""
CELL = """

@app.cell
def _({refs}):
{code}
    return{defs}
"""


def toy(*cells: tuple[str, str, str]) -> str:
    """A marimo notebook file from (refs, code, defs) triples, written as marimo writes them."""
    return NOTEBOOK.format(cells="".join(CELL.format(refs=refs, code=textwrap.indent(code, "    "), defs=defs)
                                         for refs, code, defs in cells))


TOYS = {
    "raises.py": toy(("", "import marimo as mo", " (mo,)"),
                     ("mo", 'press = mo.ui.run_button(label="never pressed")\npress', " (press,)"),
                     ("mo, press", 'mo.stop(not press.value, mo.md("waiting for the button"))\ngated = 1', " (gated,)"),
                     ("gated", 'print("below the stop", gated)', ""),
                     ("", 'raise ValueError("boom from the browser check")', ""),
                     ("", 'print("this cell ran fine")', "")),
    "clean.py": toy(("", 'print("a clean notebook")', "")),
    "hangs.py": toy(("", '__import__("time").sleep(600)', "")),
}


@pytest.fixture(scope="module")
def pycache(tmp_path_factory) -> Path:
    """One bytecode/session-cache prefix for the module: marimo and the library compile once, not per kernel."""
    return tmp_path_factory.mktemp("pycache")


@pytest.fixture(scope="module")
def toys(tmp_path_factory, pycache):
    folder = tmp_path_factory.mktemp("toys")
    for name, text in TOYS.items():
        (folder / name).write_text(text, encoding="utf-8")
    with MarimoEditServer(folder, tmp_path_factory.mktemp("toys-cwd"), pycache=pycache) as server:
        yield server


@pytest.fixture(scope="module")
def runs(request, browser, pycache, tmp_path_factory):
    """The selected notebooks (`-k` works) after Run all in smoke mode, from one `marimo edit notebooks/`."""
    selected = [item.callspec.params["notebook"] for item in request.session.items
                if getattr(item, "originalname", "") == "test_notebook_has_no_error_cell_after_run_all"]
    with MarimoEditServer(NOTEBOOK_DIR, tmp_path_factory.mktemp("marimo-edit"), args=["--smoke"],
                          env={"FILEGRAM_SMOKE": "1"}, pycache=pycache) as server:
        return check_notebooks(browser, server, selected, jobs=1, preload=1)


def test_detector_finds_an_error_cell_and_not_a_stopped_one(browser, toys, pycache):
    found = check_notebooks(browser, toys, [toys.folder / "raises.py", toys.folder / "clean.py"], jobs=2)
    run, clean = found[toys.folder / "raises.py"], found[toys.folder / "clean.py"]
    by_line = {c.first_line: c for c in run.cells}
    assert len(run.cells) == 6
    assert [c.first_line for c in run.errors] == ['raise ValueError("boom from the browser check")']
    assert "ValueError" in run.errors[0].output and "boom from the browser check" in run.errors[0].output
    assert run.errors[0].alert
    assert "boom from the browser check" in run.error_report()
    stopper = by_line['mo.stop(not press.value, mo.md("waiting for the button"))']
    assert "waiting for the button" in stopper.output and not stopper.errored
    below = by_line['print("below the stop", gated)']
    assert below.stopped and not below.errored
    assert "this cell ran fine" in by_line['print("this cell ran fine")'].console
    assert not run.not_run
    assert [c.first_line for c in clean.cells] == ['print("a clean notebook")'] and not clean.errors
    assert "a clean notebook" in clean.cells[0].console  # two pages at once: each reads its own cells
    assert not (toys.folder / "__marimo__").exists(), "marimo's session cache must not land beside the notebook"
    assert list(pycache.rglob("__marimo__/session/raises.py.json")), "it goes under PYTHONPYCACHEPREFIX instead"


def test_a_run_that_does_not_end_times_out_and_its_kernel_is_killed(browser, toys, tmp_path, pycache):
    # session_ttl: marimo would close the kernel of a closed page itself; here it is left to the server's exit
    with MarimoEditServer(toys.folder, tmp_path, pycache=pycache, session_ttl=600) as server:
        before = server.tree()
        err = check_notebooks(browser, server, [toys.folder / "hangs.py"], timeout=3)[toys.folder / "hangs.py"]
        during = server.tree()
    assert isinstance(err, TimeoutError)
    assert "hangs.py: cells still queued/running/stale 3 s after Run all" in str(err)
    assert "status running" in str(err) and '__import__("time").sleep(600)' in str(err)
    assert set(during) - set(before), "the sleeping kernel was there"
    assert not still_running(during), "and it went with the server"


def test_a_missing_browser_names_make_setup(monkeypatch):
    from filegram_kit.report import export

    def missing():
        raise export.BrowserNotFoundError("BROWSER_PATH='/nowhere/chrome' is not an executable file")

    monkeypatch.setattr(export, "find_browser", missing)
    with pytest.raises(BrowserCheckUnavailable, match=r"/nowhere/chrome.*`make setup`"):
        browser_check.chromium_path()


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_has_no_error_cell_after_run_all(runs, notebook):
    run = runs[notebook]
    if isinstance(run, Exception):
        raise run
    stopped = [c.describe() for c in run.cells if c.stopped]  # mo.stop is not an error; shown with -s
    print(f"{notebook.name}: {len(run.cells)} cells, Run all took {run.seconds:.1f} s, {len(stopped)} stopped",
          *stopped, sep="\n  ")
    assert run.cells, f"{notebook.name}: the editor rendered no cells"
    assert not run.errors, run.error_report()
    assert not run.not_run, f"{notebook.name}: cells left stale after Run all:\n" + "\n".join(
        c.describe() for c in run.not_run)


STALE_CASES = {  # notebook: (text its gated cell shows, the Run button's label)
    "06_channel_ablation.py": ("Your run:", "Run the ablation"),
    "07_sensitivity_sweeps.py": ("display_chars=", "Sweep every knob"),
}


@pytest.mark.parametrize("name", list(STALE_CASES))
def test_a_changed_control_keeps_the_last_result_marked_stale_until_run(browser, pycache, tmp_path, name):
    """docs/notebooks.md, Results that stay: after Run all (smoke), moving "Items per sub-task" keeps the result on
    screen under a note naming what changed; pressing the cell's button replaces it and the note goes. The
    figure fits the 1400 px window, inside its cell."""
    shown, button = STALE_CASES[name]
    with MarimoEditServer(NOTEBOOK_DIR, tmp_path, args=["--smoke"], env={"FILEGRAM_SMOKE": "1"},
                          pycache=pycache) as server:
        page, run = browser_check.run_notebook(browser, server, NOTEBOOK_DIR / name)
        assert not run.errors, run.error_report()
        gated = browser_check.cell_showing(page, shown)
        before = browser_check.output_text(page, gated.cell_id)
        assert "changed: press" not in before
        boxes = browser_check.plot_boxes(page)
        assert boxes, "no figure found (marimo draws plotly inside a shadow root)"
        for box in boxes:
            assert box["cell_left"] - 1 <= box["left"] and box["right"] <= box["cell_right"] + 1, box
            assert box["right"] <= box["window"], box
        limit = page.locator('[role="slider"]').last  # "Items per sub-task", the last slider of each
        browser_check.watch_cells(page)
        limit.focus()
        page.keyboard.press("ArrowLeft")
        assert browser_check.settle(page) is not None, "moving the slider ran no cell"
        stale = browser_check.output_text(page, gated.cell_id)
        assert f"Items per sub-task changed: press {button} to update" in stale
        assert shown in stale  # the previous result, still there
        browser_check.watch_cells(page)
        page.get_by_role("button", name=button).first.click()
        assert browser_check.settle(page) is not None, f"pressing {button} ran no cell"
        fresh = browser_check.output_text(page, gated.cell_id)
        assert "changed: press" not in fresh and shown in fresh
