"""Results that stay on screen when a setting changes, the same way in marimo and in JupyterLab.

A cell behind a *Run* button re-runs whenever a control it reads changes. Stopping it there (`mo.stop`) wiped
its last result, so a researcher comparing two settings lost the first one's table on touching the second.
`KeptResults` is the rule the notebooks use instead, one object per gated cell:

- the button was pressed, or the notebook runs unattended and has shown nothing yet (a script, the first run
  in smoke mode) or the cell was run as such in a Jupyter kernel (*Run all*, Shift-Enter): compute, show it,
  and remember it under its settings;
- the settings are ones already computed in this session: show that result again at once (no work);
- otherwise: keep showing the last result, with a note of what changed since ("Personas changed: press
  Run the ablation to update");
- nothing computed yet: nothing to show (the cell says to press the button).

In a Jupyter kernel a changed control re-runs the cells reading it (widgets/jupyter_reactive.py); such a re-run
counts as a changed setting, not as a press, and the kernel's *Run* button is a real button there.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

KEEP = 8  # results remembered per gated cell (the oldest goes first)


@dataclass(frozen=True)
class Kept:
    """What a gated cell shows: `value` (None: nothing run yet) and, when it is an earlier setting's, `note`."""

    value: Any
    note: str | None = None
    computed: bool = False  # this call ran `compute`

    @property
    def stale(self) -> bool:
        return self.note is not None


def _key(settings: Mapping[str, Any]) -> str:
    return json.dumps({k: settings[k] for k in settings}, sort_keys=True, default=repr)


def jupyter_cell_run() -> bool:
    """True while a served Jupyter kernel runs a cell because the user ran it (*Run all*, Shift-Enter), not
    because a control changed (widgets/jupyter_reactive.py); never under marimo or in a script."""
    from .widgets import jupyter_reactive

    reactor = jupyter_reactive._reactor
    return reactor is not None and not reactor.rerunning


class Recent:
    """The last `keep` values computed, by key (the least recently used goes first).

    marimo re-runs every cell that reads a cell that ran, also when a kept result is only shown again (an item
    seed edited back and forth): a cell below it gets its earlier value back at once with
    `recent.get(key, compute)`, instead of recomputing what it showed a moment ago."""

    def __init__(self, keep: int = KEEP):
        self.keep = keep
        self._values: OrderedDict[Any, Any] = OrderedDict()

    def __contains__(self, key: Any) -> bool:
        return key in self._values

    def __getitem__(self, key: Any) -> Any:
        self._values.move_to_end(key)
        return self._values[key]

    def put(self, key: Any, value: Any) -> None:
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self.keep:
            self._values.popitem(last=False)

    def get(self, key: Any, compute: Callable[[], Any]) -> Any:
        """The value remembered for `key`, else `compute()` (remembered)."""
        if key not in self._values:
            self.put(key, compute())
        return self[key]


class KeptResults:
    """The results of one gated cell, by their settings, and the settings of the one last shown."""

    def __init__(self, button: str, keep: int = KEEP):
        self.button = button
        self._results = Recent(keep)  # key -> (settings, value)
        self._shown: dict[str, Any] | None = None

    def get(self, settings: Mapping[str, Any], *, pressed: bool, autorun: bool = False,
            compute: Callable[[], Any]) -> Kept:
        """The result for `settings` by the rule in the module docstring; `compute` runs only when it says so.

        `autorun`: the notebook runs unattended (`notebook_args.autorun_mode()`): the first result comes
        without a press, and in a Jupyter kernel every run of the cell as such; a changed control only marks
        the result stale, as when a person presses the buttons."""
        settings = dict(settings)
        key = _key(settings)
        if pressed or (autorun and (self._shown is None or jupyter_cell_run())):
            value = compute()
            self._remember(key, settings, value)
            return Kept(value, computed=True)
        if key in self._results:
            self._shown = settings
            return Kept(self._results[key][1])
        if self._shown is None:
            return Kept(None)
        return Kept(self._results[_key(self._shown)][1], self.changes(settings))

    def changes(self, settings: Mapping[str, Any]) -> str:
        """'Personas and Items per sub-task changed: press Run to update (below: the result before).'"""
        changed = [k for k in settings if self._shown is None or self._shown.get(k) != settings[k]]
        names = " and ".join([", ".join(changed[:-1]), changed[-1]] if len(changed) > 1 else changed) or "Settings"
        return (f"{names[:1].upper()}{names[1:]} changed: press **{self.button}** to update "
                "(below: the result of the setting before).")

    def _remember(self, key: str, settings: dict[str, Any], value: Any) -> None:
        self._results.put(key, (settings, value))
        self._shown = settings


def stale_note(kept: Kept) -> Any:
    """A marimo callout with `kept.note`, or an empty element when the result is current."""
    import marimo as mo

    return mo.callout(mo.md(kept.note), kind="warn") if kept.stale else mo.md("")
