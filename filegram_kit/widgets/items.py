"""ItemBrowser: FileGramBench items filtered by track / sub-task / persona, one at a time.

    from filegram_kit.widgets import ItemBrowser
    ItemBrowser(items)                                   # JupyterLab: the widget itself is the cell's output
    ItemBrowser(items, results=results)                  # + each method's answer (results rows of the harness)
    mo.ui.anywidget(ItemBrowser(items))                  # marimo

The filtering and the item's record are pure functions here (`filter_items`, `filter_options`,
`item_record`, `answers_by_question`); the widget keeps the filters, the position and the reveal switch
as synced traitlets and `items.js` draws the item. The correct answer is hidden until `reveal` is on and
hidden again when you step to another item.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import anywidget
import polars as pl
import traitlets

from ..bench.schema import SUB_TRACKS, TRACKS, Item
from ..llm.tasks import LETTERS
from .jupyter_kernel import restore_jupyter_kernel

RESULT_COLUMNS = ("method", "question_id", "answer", "is_correct")
OPTIONAL_RESULT_COLUMNS = ("backend", "seed", "score", "error")
_STATIC = Path(__file__).parent


def _ordered(values: Iterable[str], order: Iterable[str] = ()) -> list[str]:
    """Distinct values, those of `order` first in that order, then the rest in first-seen order."""
    seen = list(dict.fromkeys(values))
    known = [v for v in order if v in seen]
    return known + [v for v in seen if v not in known]


def filter_items(items: Iterable[Item], *, track: str = "", sub_track: str = "", persona: str = "") -> list[Item]:
    """The items matching every filter that is set ("" matches everything), in their original order."""
    return [i for i in items if (not track or i.track == track) and (not sub_track or i.sub_track == sub_track)
            and (not persona or i.profile_id == persona)]


def filter_options(items: Iterable[Item], *, track: str = "", sub_track: str = "") -> dict[str, list[str]]:
    """What each filter can be set to: every track; the sub-tasks of the chosen track; the personas with
    items in the chosen track and sub-task. Tracks and sub-tasks in the paper's order."""
    items = list(items)
    in_track = filter_items(items, track=track)
    return {"tracks": _ordered((i.track for i in items), TRACKS),
            "sub_tracks": _ordered((i.sub_track for i in in_track), SUB_TRACKS),
            "personas": _ordered(i.profile_id for i in filter_items(in_track, sub_track=sub_track))}


def _plain(value: Any) -> Any:
    return None if isinstance(value, float) and math.isnan(value) else value  # NaN is not valid JSON


def answers_by_question(results: Any) -> dict[str, list[dict[str, Any]]]:
    """Results rows grouped by question_id, each {method, answer, is_correct, (backend, seed, score, error)}
    in the frame's row order. `results` is a polars frame (or anything `pl.DataFrame` takes: a list of
    dicts, a pandas frame) with at least the columns method, question_id, answer, is_correct."""
    frame = results if isinstance(results, pl.DataFrame) else pl.DataFrame(results)
    missing = [c for c in RESULT_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"ItemBrowser: the results frame has no column(s) {', '.join(missing)} "
                         f"(it has: {', '.join(frame.columns) or 'none'})")
    keep = [c for c in RESULT_COLUMNS if c != "question_id"] + [c for c in OPTIONAL_RESULT_COLUMNS
                                                                 if c in frame.columns]
    out: dict[str, list[dict[str, Any]]] = {}
    for qid, row in zip(frame["question_id"].to_list(), frame.select(keep).to_dicts(), strict=True):
        out.setdefault(qid, []).append({k: _plain(v) for k, v in row.items()})
    return out


def item_record(item: Item, answers: Iterable[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The item as the browser shows it (JSON-serialisable): its ids and question, lettered choices,
    the correct letter and text (the reference answer for free-form items) and the answers given."""
    choices = [{"letter": LETTERS[k], "text": text} for k, text in enumerate(item.choices)]
    correct_text = item.choices[item.answer_index] if item.is_mcq else item.correct
    return {"question_id": item.question_id, "track": item.track, "sub_track": item.sub_track,
            "sub_class": item.sub_class, "channel": item.channel, "profile_id": item.profile_id,
            "question": item.question, "is_mcq": item.is_mcq, "choices": choices, "correct": item.correct,
            "correct_text": correct_text, "chance": item.chance, "input_trajectories": list(item.input_trajectories),
            "answers": [dict(a) for a in answers]}


class ItemBrowser(anywidget.AnyWidget):
    """Filter bench items by track, sub-task and persona, step through them, reveal the answer.

    Synced state: `track`, `sub_track`, `persona` ("" = all), `position` (0-based in the filtered items,
    clamped), `reveal`; `tracks` / `sub_tracks` / `personas` (the filters' options), `count` and `item`
    are recomputed in Python. A sub-task outside the chosen track, or a persona with no item under the
    chosen track and sub-task, falls back to "" (all)."""

    _esm = _STATIC / "items.js"
    _css = _STATIC / "items.css"

    tracks = traitlets.List(traitlets.Unicode()).tag(sync=True)
    sub_tracks = traitlets.List(traitlets.Unicode()).tag(sync=True)
    personas = traitlets.List(traitlets.Unicode()).tag(sync=True)
    track = traitlets.Unicode("").tag(sync=True)
    sub_track = traitlets.Unicode("").tag(sync=True)
    persona = traitlets.Unicode("").tag(sync=True)
    count = traitlets.Int(0).tag(sync=True)
    position = traitlets.Int(0).tag(sync=True)
    item = traitlets.Dict().tag(sync=True)
    reveal = traitlets.Bool(False).tag(sync=True)
    has_results = traitlets.Bool(False).tag(sync=True)

    def __init__(self, items: Iterable[Item], *, results: Any = None, **kwargs: Any):
        self._all = list(items)
        if not self._all:
            raise ValueError("ItemBrowser: no items given")
        self._answers = answers_by_question(results) if results is not None else {}
        self._matches = self._all
        self._busy = False
        restore_jupyter_kernel()  # in a Jupyter kernel: its own comms, even after a marimo layout
        super().__init__(has_results=results is not None, **kwargs)
        self.observe(self._on_filter, names=["track", "sub_track", "persona"])
        self.observe(self._on_position, names=["position"])
        self._on_filter(None)

    @property
    def items(self) -> list[Item]:
        """The items the filters let through, in order."""
        return list(self._matches)

    @property
    def current(self) -> Item | None:
        """The item on show (None when no item matches)."""
        return self._matches[self.position] if self._matches else None

    def _check(self, proposal: dict, values: set[str], what: str) -> str:
        if proposal["value"] and proposal["value"] not in values:
            raise traitlets.TraitError(f"ItemBrowser: no item has {what} {proposal['value']!r}; "
                                       f"known: {', '.join(sorted(values))}")
        return proposal["value"]

    @traitlets.validate("track")
    def _valid_track(self, proposal: dict) -> str:
        return self._check(proposal, {i.track for i in self._all}, "track")

    @traitlets.validate("sub_track")
    def _valid_sub_track(self, proposal: dict) -> str:
        return self._check(proposal, {i.sub_track for i in self._all}, "sub_track")

    @traitlets.validate("persona")
    def _valid_persona(self, proposal: dict) -> str:
        return self._check(proposal, {i.profile_id for i in self._all}, "persona")

    @traitlets.validate("position")
    def _clamp_position(self, proposal: dict) -> int:
        return max(0, min(int(proposal["value"]), len(self._matches) - 1))

    def _on_filter(self, _change: Any) -> None:
        if self._busy:  # the fall-backs below set filters too
            return
        self._busy = True
        try:
            with self.hold_sync():
                options = filter_options(self._all, track=self.track)
                if self.sub_track not in ("", *options["sub_tracks"]):
                    self.sub_track = ""
                options = filter_options(self._all, track=self.track, sub_track=self.sub_track)
                if self.persona not in ("", *options["personas"]):
                    self.persona = ""
                self.tracks, self.sub_tracks, self.personas = (options["tracks"], options["sub_tracks"],
                                                               options["personas"])
                self._matches = filter_items(self._all, track=self.track, sub_track=self.sub_track,
                                             persona=self.persona)
                self.count = len(self._matches)
                self.position = 0
                self._on_position(None)
        finally:
            self._busy = False

    def _on_position(self, _change: Any) -> None:
        item = self.current
        with self.hold_sync():
            self.reveal = False
            self.item = {} if item is None else item_record(item, self._answers.get(item.question_id, ()))
