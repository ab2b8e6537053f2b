"""Results that stay on screen when a setting changes (filegram_kit/notebook_results.py): the rule itself, then
the same rule in a real Jupyter kernel, where a changed control re-runs the gated cell and the Run button is a
real button."""

from __future__ import annotations

import nbformat
from nbclient import NotebookClient

from filegram_kit.notebook_results import KeptResults, Recent


def counting():
    calls = []

    def compute_for(settings):
        def compute():
            calls.append(dict(settings))
            return f"result for {settings}"
        return compute
    return calls, compute_for


def test_a_changed_setting_keeps_the_last_result_and_names_what_changed():
    kept, (calls, compute_for) = KeptResults("Run the ablation"), counting()
    first = {"Personas": ["p1"], "Items per sub-task": 20}
    assert kept.get(first, pressed=False, compute=compute_for(first)).value is None  # nothing run yet
    shown = kept.get(first, pressed=True, compute=compute_for(first))
    assert shown.computed and not shown.stale and shown.value == f"result for {first}"
    second = {"Personas": ["p1", "p2"], "Items per sub-task": 50}
    stale = kept.get(second, pressed=False, compute=compute_for(second))
    assert stale.value == f"result for {first}" and not stale.computed
    assert stale.note.startswith("Personas and Items per sub-task changed: press **Run the ablation**")
    assert len(calls) == 1  # a changed setting alone computes nothing
    kept.get(second, pressed=True, compute=compute_for(second))
    back = kept.get(first, pressed=False, compute=compute_for(first))  # a setting seen before: shown at once
    assert back.value == f"result for {first}" and not back.stale and len(calls) == 2
    kept.get(second, pressed=False, compute=compute_for(second))  # shown again: what the next change is against
    third = {"Personas": ["p1", "p2"], "Items per sub-task": 5}
    assert kept.get(third, pressed=False, compute=compute_for(third)).note.startswith("Items per sub-task changed")


def test_a_cell_below_a_kept_result_gets_its_earlier_value_back_and_forgets_the_oldest():
    calls, recent = [], Recent(keep=2)

    def compute(key):
        return lambda: calls.append(key) or f"audit of {key}"

    assert recent.get("seed 0", compute("seed 0")) == "audit of seed 0"
    assert recent.get("seed 1", compute("seed 1")) == "audit of seed 1"
    assert recent.get("seed 0", compute("seed 0")) == "audit of seed 0"  # back and forth: no work
    assert calls == ["seed 0", "seed 1"]
    recent.get("seed 2", compute("seed 2"))  # seed 1 was used least recently: it goes, seed 0 stays
    recent.get("seed 0", compute("seed 0"))
    recent.get("seed 1", compute("seed 1"))
    assert calls == ["seed 0", "seed 1", "seed 2", "seed 1"]


def test_an_unattended_run_computes_its_first_result_then_follows_the_buttons():
    kept, (calls, compute_for) = KeptResults("Run", keep=2), counting()
    assert kept.get({"n": 1}, pressed=False, autorun=True, compute=compute_for({"n": 1})).computed
    assert kept.get({"n": 2}, pressed=False, autorun=True, compute=compute_for({"n": 2})).stale  # smoke: a change
    for n in (2, 3):
        assert kept.get({"n": n}, pressed=True, autorun=True, compute=compute_for({"n": n})).computed
    assert [c["n"] for c in calls] == [1, 2, 3]
    assert kept.get({"n": 1}, pressed=False, compute=compute_for({"n": 1})).stale  # only the last 2 are kept
    assert not kept.get({"n": 2}, pressed=False, compute=compute_for({"n": 2})).stale


def test_in_a_jupyter_kernel_a_changed_control_marks_stale_and_the_run_button_runs(tmp_path):
    cells = ["import marimo as mo\nimport filegram_kit.notebook_args\n"
             "from filegram_kit.notebook_results import KeptResults, stale_note\n"
             "from filegram_kit.widgets.jupyter_outputs import bound_widget\n"
             "kept, calls, seen = KeptResults('Run it'), [], []\n"
             "def widget(name):  # by name: a cell that reads a control would be re-run when it changes\n"
             "    return bound_widget(globals()[name])",
             "pick = mo.ui.dropdown(['a', 'b'], value='a', label='pick')\nrun = mo.ui.run_button(label='Run it')\n"
             "mo.hstack([pick, run])",
             "k = kept.get({'pick': pick.value}, pressed=run.value, autorun=True,\n"
             "             compute=lambda: calls.append(pick.value) or f'result for {pick.value}')\n"
             "seen.append(k)\nmo.vstack([stale_note(k), mo.md(k.value)])",
             "widget('pick').value = 'b'\nprint('changed', seen[-1].value, seen[-1].stale, seen[-1].note)",
             "widget('run').click()\nprint('pressed', seen[-1].value, seen[-1].stale, globals()['run'].value)",
             "widget('pick').value = 'a'\nprint('back', seen[-1].value, seen[-1].stale, calls)"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name="python3", timeout=300, store_widget_state=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert not [o for c in nb.cells for o in c.outputs if o.output_type == "error"]
    printed = ["".join(o.get("text", "") for o in nb.cells[i].outputs).strip() for i in (3, 4, 5)]
    assert printed[0].startswith("changed result for a True Pick changed: press **Run it**")
    assert printed[1] == "pressed result for b False False"  # computed on the click; the button reset
    assert printed[2] == "back result for a False ['a', 'b']"  # seen before: shown again, nothing computed
