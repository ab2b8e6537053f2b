"""Views of FileGramBench for notebook 05: one item through every method, Table 3 as charts, and
where the offline reader falls short of what FileGramOS knows.

    item_markdown(item)                               question, lettered choices, the answer, the inputs
    cmp = compare_methods(item, store, METHODS, backend)   cmp.frame (one row per method), cmp.contexts
    shown(context.text)                               a long context cut for display, saying so
    channel_bars(table3(rows))                        FigureData: Proc / Sem / Epi, one bar trace per method
    subtask_bars(table3(rows), items)                 FigureData: the sub-tasks, chance marked
    knows_vs_acts(items, store, backend, n=20)        Anomaly Detection: the memory's drift rank vs the reader's pick

`store` is a `bench.inputs.TrajectoryStore` (anything with `.get(trajectory_id)`); every memory
gets the item's inputs as `materialise` gives them (anonymised), exactly as the harness does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
import polars as pl
from plotly.colors import qualitative

from ..bench.inputs import materialise
from ..bench.reader import answer
from ..bench.schema import Item
from ..bench.score import CHANNEL_COLUMNS, METHOD_LABELS, SUB_TASKS
from ..llm.config import KEY_VARIABLES
from ..llm.tasks import LETTERS
from ..memory import Context, get_memory
from .registry import FigureData

if TYPE_CHECKING:
    from ..llm.base import Backend

METHODS = tuple(METHOD_LABELS)  # paper Table 3's 13 methods, in its order
DISPLAY_CHARS = 6_000  # contexts longer than this are cut in the notebook's tabs (the reader saw them whole)
READER_BACKENDS = ("gemini", "openai_compat")  # backends that can answer as an LLM reader (cohere only embeds)
CHANCE_COLOR = "#222222"
_TASK = re.compile(r"\bT-\d+\b")
_COMPARE_SCHEMA = {"method": pl.String, "label": pl.String, "memory_tokens": pl.Int64, "context_tokens": pl.Int64,
                   "answer": pl.String, "chosen": pl.String, "is_correct": pl.Boolean, "score": pl.Float64,
                   "confidence": pl.Float64, "error": pl.String}


def registered_methods() -> list[str]:
    """Every memory `get_memory` can build: Table 3's methods first (in order), then any other registered one."""
    from ..memory.base import MEMORIES

    return [m for m in METHODS if m in MEMORIES] + sorted(m for m in MEMORIES if m not in METHODS)


def method_choices() -> tuple[dict[str, str], list[str]]:
    """A method picker's options (label -> method, every registered memory) and its default (Table 3's 13)."""
    options = {METHOD_LABELS.get(m, m): m for m in registered_methods()}
    return options, [METHOD_LABELS.get(m, m) for m in METHODS]


def method_colors(methods: Iterable[str]) -> dict[str, str]:
    """A fixed colour per method (Table 3 order), so every chart colours a method alike."""
    order = list(METHOD_LABELS)
    palette = qualitative.Safe + qualitative.Vivid  # 22 colours: Table 3's 13 methods never share one
    return {m: palette[(order.index(m) if m in order else len(order)) % len(palette)] for m in methods}


def available_backends(environ: Mapping[str, str] | None = None) -> list[str]:
    """"offline", then the LLM readers whose key (or, for openai_compat, base URL) is in the environment."""
    env = os.environ if environ is None else environ
    found = [name for name in READER_BACKENDS if any(env.get(v) for v in KEY_VARIABLES.get(name, ()))
             or (name == "openai_compat" and env.get("OPENAI_BASE_URL"))]
    return ["offline", *found]


def results_folder(root: str | Path, items: Sequence[Item]) -> Path:
    """root/<items hash>: a run over other items (another corpus or seed) gets its own folder, since
    `evaluate` refuses to add rows to a folder made from other items."""
    from ..bench.manifest import items_hash

    return Path(root) / f"items-{items_hash(list(items))[:12]}"


# -- one item -------------------------------------------------------------------------------------------------


def memory_label(trajectory_id: str) -> str:
    """The name a memory sees a trajectory under (`bench.inputs.anonymise`: its task id)."""
    return trajectory_id.rsplit("_", 1)[-1]


def item_markdown(item: Item) -> str:
    """The item as a reader would see it, plus its truth: lettered options (the correct one marked), the
    channel, and the input trajectories with the anonymous names the memory gets them under."""
    lines = [f"**{item.question_id}** · {item.track} / {item.sub_track} / {item.sub_class} · channel "
             f"**{item.channel}** · about `{item.profile_id}`", "", f"> {item.question}", ""]
    if item.is_mcq:
        lines += [f"- {'✅ ' if LETTERS[k] == item.correct else ''}**{LETTERS[k]}.** {choice}"
                  for k, choice in enumerate(item.choices)]
        lines += ["", f"Correct: **{item.correct}** (chance {item.chance:.0%})"]
    else:
        lines += [f"Free-form; the reference the judge scores against: *{item.correct}*"]
    pair = item.metadata.get("interleave")
    if pair:
        inputs = (f"one interleaved session `{memory_label(pair[0])}` merging `{pair[0]}` and `{pair[1]}` "
                  "(events ordered by time since each session's start)")
    else:
        inputs = ", ".join(f"`{t}` → `{memory_label(t)}`" for t in item.input_trajectories)
    lines += ["", f"**Inputs** ({len(item.input_trajectories)} trajectories; the memory sees them anonymised, "
              f"named by task only): {inputs}"]
    return "\n".join(lines)


def shown(text: str, limit: int = DISPLAY_CHARS) -> str:
    """`text`, cut at `limit` characters for display with a line saying how much was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + (f"\n\n[... display cut at {limit:,} characters: {len(text) - limit:,} more not shown "
                           "here; the reader got the whole context]")


@dataclass(frozen=True)
class Comparison:
    frame: pl.DataFrame  # one row per method: tokens, the reader's answer and score, any error
    contexts: dict[str, Context]  # method -> the context its memory retrieved for the question


def _chosen(item: Item, letter: str) -> str:
    if not item.is_mcq:
        return letter
    return item.choices[LETTERS.index(letter)] if letter in LETTERS[:len(item.choices)] else ""


def _one_method(item: Item, trajs: list, method: str, backend: Backend) -> tuple[dict[str, Any], Context | None]:
    row: dict[str, Any] = {"method": method, "label": METHOD_LABELS.get(method, method)}
    try:
        memory = get_memory(method).ingest(trajs, backend=backend)
        row["memory_tokens"] = int(memory.memory_tokens())
        context = memory.retrieve(item.question, backend=backend)
    except Exception as exc:  # shown in the row, as the harness records it
        return {**row, "error": f"{type(exc).__name__}: {exc}"[:300]}, None
    reply = answer(item, context, backend=backend)
    row.update(context_tokens=context.tokens, answer=reply.answer, chosen=_chosen(item, reply.answer),
               is_correct=reply.is_correct, score=reply.score, confidence=reply.confidence, error=reply.error)
    return row, context


def compare_methods(item: Item, store: Any, methods: Sequence[str] = METHODS, *, backend: Backend) -> Comparison:
    """Ingest the item's (anonymised) inputs into each method's memory, retrieve with the question and
    answer with the shared reader. A method that fails gets a row with its error and no context."""
    trajs = materialise(item, store)
    rows, contexts = [], {}
    for method in methods:
        row, context = _one_method(item, trajs, method, backend)
        rows.append(row)
        if context is not None:
            contexts[method] = context
    return Comparison(pl.DataFrame(rows, schema=_COMPARE_SCHEMA), contexts)


# -- Table 3 as charts ----------------------------------------------------------------------------------------


def subtask_chance(items: Iterable[Item]) -> pl.DataFrame:
    """Per sub-task (paper order): items and chance accuracy (%) = mean of 1/len(choices) over its items;
    null for a sub-task of free-form items (ProfRec, VisGrd: scored by a judge, not by picking)."""
    rows: dict[str, list[Item]] = {}
    for item in items:
        rows.setdefault(item.sub_track, []).append(item)
    out = [{"sub_track": sub, "abbr": abbr, "items": len(rows.get(sub, [])),
            "chance": (100 * float(np.mean([i.chance for i in mcq])) if (mcq := [i for i in rows.get(sub, [])
                                                                                  if i.is_mcq]) else None)}
           for sub, abbr in SUB_TASKS.items()]
    return pl.DataFrame(out, schema={"sub_track": pl.String, "abbr": pl.String, "items": pl.Int64,
                                     "chance": pl.Float64})


def _bars(table: pl.DataFrame, columns: Sequence[str]) -> tuple[go.Figure, pl.DataFrame]:
    """Grouped bars: one trace per row of `table` (a method), x = `columns`; and the long frame drawn."""
    colors = method_colors(table["method"])
    fig = go.Figure()
    long = []
    for row in table.iter_rows(named=True):
        values = [row[c] for c in columns]
        fig.add_trace(go.Bar(x=list(columns), y=values, name=row["label"], marker_color=colors[row["method"]],
                             text=[f"{v:.0f}" if v is not None else "–" for v in values], textposition="outside"))
        long += [{"method": row["method"], "label": row["label"], "column": c, "value": v}
                 for c, v in zip(columns, values, strict=True)]
    data = pl.DataFrame(long, schema={"method": pl.String, "label": pl.String, "column": pl.String,
                                      "value": pl.Float64})
    return fig, data


def _layout(fig: go.Figure, title: str, width: int) -> go.Figure:
    fig.update_layout(barmode="group", template="plotly_white", width=width, height=420, title=dict(text=title, x=0.5),
                      legend=dict(orientation="h", x=0.5, xanchor="center", y=-0.15, yanchor="top"),
                      margin=dict(l=60, r=20, t=60, b=80))
    fig.update_yaxes(title_text="accuracy (%)", range=[0, 105])
    return fig


def channel_bars(table: pl.DataFrame, *, title: str = "Accuracy by memory channel") -> FigureData:
    """Proc / Sem / Epi accuracy (multiple-choice items of that channel), one bar trace per method."""
    fig, data = _bars(table, list(CHANNEL_COLUMNS.values()))
    return FigureData(_layout(fig, title, 520), data)


def subtask_bars(table: pl.DataFrame, items: Iterable[Item], *,
                 title: str = "Accuracy by sub-task (black dash: chance)") -> FigureData:
    """The sub-task columns, one bar trace per method, and a `chance` marker trace from `items` (the items
    the rows answered). ProfRec (rescaled Likert) and VisGrd (rubric score) are judged: no chance level."""
    columns = list(SUB_TASKS.values())
    fig, data = _bars(table, columns)
    chance = subtask_chance(items)
    fig.add_trace(go.Scatter(x=chance["abbr"].to_list(), y=chance["chance"].to_list(), name="chance", mode="markers",
                             marker=dict(symbol="line-ew-open", size=48, line=dict(width=3, color=CHANCE_COLOR)),
                             hovertemplate="%{x}: chance %{y:.1f}%<extra></extra>"))
    data = data.join(chance.select(pl.col("abbr").alias("column"), "chance"), on="column", how="left")
    fig = _layout(fig, title, 900)
    fig.update_yaxes(title_text="accuracy (%) · ProfRec, VisGrd: judge's 0-100")
    return FigureData(fig, data)


# -- what the memory knows vs what the reader does -----------------------------------------------------------


def option_task(choice: str) -> str | None:
    """The task id an Anomaly Detection option names ("The session on T-16 (...)" -> "T-16")."""
    found = _TASK.search(choice)
    return found.group(0) if found else None


def drift_rank(drift: pl.DataFrame, task_id: str, by: str = "deviation") -> int:
    """1-based rank of the session of `task_id` in the drift frame, most unusual (largest `by`) first."""
    order = drift.sort([by, "task_id"], descending=[True, False])["task_id"].to_list()
    if task_id not in order:
        raise KeyError(f"drift_rank: no session {task_id!r} in the drift frame ({', '.join(order)})")
    return order.index(task_id) + 1


def spread(items: Sequence[Item], n: int) -> list[Item]:
    """n items evenly spaced over the list (so a handful covers several personas and both sub-classes)."""
    if n >= len(items):
        return list(items)
    return [items[int(k)] for k in np.linspace(0, len(items) - 1, n).round().astype(int)]


def _knows_row(item: Item, store: Any, backend: Backend, memory: str) -> dict[str, Any]:
    mem = get_memory(memory).ingest(materialise(item, store), backend=backend)
    drift = mem.drift_.sort(["deviation", "task_id"], descending=[True, False])
    truth = memory_label(item.metadata["answer_trajectory"])
    reply = answer(item, mem.retrieve(item.question, backend=backend), backend=backend)
    by_label = {label: memory_label(tid) for tid, label in (item.metadata.get("labels") or {}).items()}
    tasks = [by_label.get(c) or option_task(c) for c in item.choices]  # options name sessions by label
    top = drift["task_id"][0]
    return {"question_id": item.question_id, "sub_class": item.sub_class, "correct": item.correct,
            "correct_session": truth, "sessions": drift.height, "drift_rank": drift_rank(drift, truth),
            "flagged": bool(drift.filter(pl.col("task_id") == truth)["flagged"][0]), "drift_top": top,
            "drift_pick": LETTERS[tasks.index(top)] if top in tasks else None,
            "reader_pick": reply.answer, "reader_session": tasks[LETTERS.index(reply.answer)] if reply.answer else None,
            "reader_correct": reply.is_correct, "reader_confidence": round(reply.confidence, 3)}


def knows_vs_acts(items: Iterable[Item], store: Any, backend: Backend, n: int = 20, *,
                  memory: str = "filegramos") -> pl.DataFrame:
    """For n Anomaly Detection items (evenly spread): where the memory's own drift ranking puts the correct
    session (`drift_rank`, 1 = the most unusual of the user's sessions; `drift_pick` = the option naming the
    top-ranked session) against the option the reader picks from the memory's context (`reader_pick`)."""
    chosen = spread([i for i in items if i.sub_track == "anomaly_detection" and i.is_mcq], n)
    return pl.DataFrame([_knows_row(item, store, backend, memory) for item in chosen])


def knows_vs_acts_summary(frame: pl.DataFrame) -> dict[str, int]:
    """Counts over a `knows_vs_acts` frame: items, memory ranks the truth first, reader right, both, chance-ish."""
    knows = frame["drift_rank"] == 1
    acts = frame["reader_correct"]
    return {"items": frame.height, "knows": int(knows.sum()), "acts": int(acts.sum()),
            "knows_not_acts": int((knows & ~acts).sum()), "acts_not_knows": int((~knows & acts).sum())}
