"""How long a researcher waits in the notebooks: open, interact and edit times in `marimo edit`, in a real browser.

    python benchmarks/notebook_times.py [--smoke] [--notebooks 02 06] [--append BENCHMARKS.md] [--rewrite]

One `marimo edit --headless notebooks/` (the full corpus in data/corpus unless --smoke) serves each notebook in
the system's headless Chromium, driven as tests/browser_check.py drives it (1400 x 1000 window). Per notebook:

- open: the page loaded and its kernel connected (`load`), then Run all until no cell is busy (`run all`);
- interact: each step of the notebook's script below (a press of a Run button, a changed control), from the
  action until no cell is busy;
- edit: a comment typed at the end of one cell's first line and the cell run (Ctrl-Enter): marimo runs the cell
  and everything that reads it, as after any edit.

Times include the browser's drawing and are wall seconds on this machine, with whatever else runs on it: the
section says what else was running when it was written (`--note`). Nothing is typed into BENCHMARKS.md by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from markdown_section import write_section
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests import browser_check as bc  # noqa: E402  (the project's browser driver)


def heading(smoke: bool) -> str:
    """Each mode has its own section of BENCHMARKS.md (and its own JSON), so a run of one leaves the other."""
    return f"## Notebooks in the browser ({'smoke mode' if smoke else 'the full corpus'})"


def out_json(smoke: bool) -> Path:
    return Path(__file__).with_name(f"notebook_times{'_smoke' if smoke else ''}.json")


# per notebook: the steps a researcher takes after opening it, and the cell (by a line of its code) to edit
SCRIPTS: dict[str, tuple[list[tuple[str, ...]], str]] = {
    "02_trace_generation.py": ([("press", "Run the engine"), ("number", "0", "1"), ("press", "Run the engine"),
                                ("number", "0", "0")], "raw_frame = fk.events_frame"),
    "03_fingerprint_explorer.py": ([("select", "0", "1"), ("select", "2", "1")], "_ids = natural_sorted"),
    "05_benchmark.py": ([("press", "Build the items"), ("number", "0", "1"), ("press", "Build the items"),
                         ("number", "0", "0"), ("press", "Run the benchmark")], "_cmp = paper_comparison(items)"),
    "06_channel_ablation.py": ([("press", "Run the ablation"), ("slider", "-1", "ArrowLeft"),
                                ("press", "Run the ablation")], "variants = ablation.channel_ablation()"),
    "07_sensitivity_sweeps.py": ([("press", "Sweep every knob"), ("slider", "-1", "ArrowLeft"),
                                  ("press", "Sweep every knob")], "base = {\"display_chars\""),
}
# the steps a researcher takes first on the full corpus, where no gated cell runs on its own (`autorun_mode()` is
# off in `marimo edit` outside smoke mode): 03's explorers wait behind its corpus button
FULL_FIRST: dict[str, list[tuple[str, ...]]] = {"03_fingerprint_explorer.py": [("press", "Load the corpus")]}


def script(name: str, smoke: bool) -> tuple[list[tuple[str, ...]], str]:
    """(steps, the line of the cell to edit) of a notebook in this mode."""
    steps, marker = SCRIPTS[name]
    return ([] if smoke else FULL_FIRST.get(name, [])) + steps, marker


def act(page, step: tuple[str, ...]) -> str:
    """Do one step; a short description of it."""
    kind, *args = step
    if kind == "press":
        page.get_by_role("button", name=args[0]).first.click()
        return f"press {args[0]}"
    if kind == "slider":
        slider = page.locator('[role="slider"]').nth(int(args[0]))
        slider.focus()
        page.keyboard.press(args[1])
        return f"slider {args[0]}: {args[1]}"
    if kind == "number":  # marimo's number fields: text inputs with inputmode=numeric
        field = page.locator('input[inputmode="numeric"]').nth(int(args[0]))
        field.fill(args[1])
        field.press("Enter")
        return f"number {args[0]} = {args[1]}"
    if kind == "select":  # the option `args[1]` places after the one shown
        select = page.locator("select").nth(int(args[0]))
        shown, count = select.evaluate("e => [e.selectedIndex, e.options.length]")
        select.select_option(index=(shown + int(args[1])) % count)
        return f"dropdown {args[0]}: next option"
    raise ValueError(f"unknown step {kind!r}")


def edit(page, marker: str) -> None:
    """Type a comment at the end of the first line of the cell holding `marker`, then run that cell."""
    code = page.locator(".marimo-cell .cm-content", has_text=marker).first
    code.locator(".cm-line").first.click()
    page.keyboard.press("End")
    page.keyboard.type("  # edited")
    page.keyboard.press("Control+Enter")


def time_notebook(context, server: bc.MarimoEditServer, name: str, smoke: bool) -> dict:
    steps, marker = script(name, smoke)
    opened = time.perf_counter()
    watch = bc.NotebookWatch(context, server, server.folder / name)
    while (run := watch.step()) is None:
        time.sleep(bc.POLL_S / 4)
    row = {"notebook": name, "load_s": round(time.perf_counter() - opened - run.seconds, 1),
           "run_all_s": round(run.seconds, 1), "errors": len(run.errors), "steps": []}
    page = watch.page
    page.set_default_timeout(10_000)
    page.wait_for_timeout(1000)  # outputs drawn after the last cell ran may still replace controls: not timed
    for step in steps:
        bc.watch_cells(page)
        started = time.perf_counter()
        try:
            what = act(page, step)
        except PlaywrightTimeout:  # this mode's page has no such control (e.g. it waits behind another button)
            row["steps"].append({"step": " ".join(step) + " (control not found)", "seconds": None})
            continue
        ran = bc.settle(page) is not None
        if not ran and step[0] == "press":  # a click on a button marimo was still redrawing is lost: once more
            bc.watch_cells(page)
            started = time.perf_counter()
            what = act(page, step) + " (clicked twice: the first click set nothing off)"
            ran = bc.settle(page) is not None
        row["steps"].append({"step": what, "seconds": round(time.perf_counter() - started, 1) if ran else None})
    bc.watch_cells(page)
    started = time.perf_counter()
    try:
        edit(page, marker)
        row["edit_s"] = round(time.perf_counter() - started, 1) if bc.settle(page) is not None else None
    except PlaywrightTimeout:
        row["edit_s"] = None
    row["errors_after"] = sum(c.errored for c in bc.cell_states(page))
    watch.close()
    return row


def _seconds(value: float | None) -> str:
    return "no cell ran" if value is None else f"{value:.1f}"  # or the control was not there (said in the step)


def section(result: dict) -> str:
    flag = " --smoke" if result["smoke"] else ""
    lines = [heading(result["smoke"]), "", f"`python benchmarks/notebook_times.py{flag}` on "
             f"{result['machine']}, {result['cores']} cores, `marimo edit` in headless Chromium at 1400 x 1000, "
             f"{'smoke mode' if result['smoke'] else 'the full corpus'} (written from "
             f"benchmarks/{out_json(result['smoke']).name}; the script's docstring says what each time covers)."]
    if result.get("note"):
        lines += ["", f"While it ran: {result['note']}."]
    if result["smoke"]:
        lines += ["", "In smoke mode every gated cell also runs on its own (`autorun_mode()`), so a step's time "
                      "includes the gated cells below it that run again: 05's item-seed steps re-run its smoke "
                      "benchmark, although the items of a seed seen before come back without being rebuilt. "
                      "\"no cell ran\": the step set nothing off (or ran too briefly to be seen)."]
    else:
        lines += ["", "On the full corpus no gated cell runs on its own: Run all stops at each *Run* button, and a "
                      "press's time is everything it sets off (building the full corpus' items, answering, a sweep). "
                      "A result computed before in the session comes back without work. \"no cell ran\": the step "
                      "set nothing off (or ran too briefly to be seen)."]
    lines += ["", "| notebook | load (s) | Run all (s) | edit a cell (s) | steps (s each) | error cells |",
              "|---|---:|---:|---:|---|---:|"]
    for row in result["rows"]:
        steps = "; ".join(f"{s['step']}: {_seconds(s['seconds'])}" for s in row["steps"])
        lines.append(f"| {row['notebook']} | {row['load_s']:.1f} | {row['run_all_s']:.1f} | "
                     f"{_seconds(row['edit_s'])} | {steps} | {row['errors'] + row['errors_after']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="the notebooks' small smoke runs, not the full corpus")
    parser.add_argument("--notebooks", nargs="*", help="number prefixes, e.g. 02 06 (default: all timed ones)")
    parser.add_argument("--note", default="", help="what else ran on the machine meanwhile (goes in the section)")
    parser.add_argument("--append", type=Path, help="write the section into this Markdown file")
    parser.add_argument("--rewrite", action="store_true", help="no browser: write the section from the last "
                        "run's JSON of this mode (benchmarks/notebook_times[_smoke].json)")
    args = parser.parse_args()
    if args.rewrite:
        text = section(json.loads(out_json(args.smoke).read_text(encoding="utf-8")))
        if args.append:
            write_section(args.append, heading(args.smoke), text)
        print(text)
        return
    names = [n for n in SCRIPTS if not args.notebooks or n[:2] in args.notebooks]
    env = {"FILEGRAM_SMOKE": "1"} if args.smoke else {}
    rows = []
    with tempfile.TemporaryDirectory(prefix="filegram-notebook-times-") as tmp, bc.chromium() as context, \
            bc.MarimoEditServer(ROOT / "notebooks", Path(tmp), args=["--smoke"] if args.smoke else [],
                                env=env) as server:
        for name in names:
            print(f"{name} ...", flush=True)
            rows.append(time_notebook(context, server, name, args.smoke))
            print(json.dumps(rows[-1]), flush=True)
    result = {"smoke": args.smoke, "machine": platform.machine(), "cores": os.cpu_count(), "note": args.note,
              "rows": rows}
    out_json(args.smoke).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    text = section(result)
    if args.append:
        write_section(args.append, heading(args.smoke), text)
    print(text)


if __name__ == "__main__":
    main()
