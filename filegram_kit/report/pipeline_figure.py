"""Paper Figure 6: the FileGramOS pipeline, drawn from the code's own stages, units, channels and knobs.

Nothing here is typed by hand: Stage 1 is `engram.encode` and the fields of `Engram` (with the
dataclasses they hold), Stage 2 `channels.consolidate`, the ingest parameters of `FileGramOS` and
one box per name in `retrieve.CHANNELS` with its channel dataclass's fields, Stage 3
`retrieve.build_context` with the blocks of `BLOCK_TITLES` in order and every `Knobs` field with its
default. Details are the code's annotations, inline comments and first docstring lines. Add a channel
or a knob and the figure (and its CSV: one row per node and edge) changes with it.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import textwrap
import typing
from dataclasses import dataclass

import plotly.graph_objects as go
import polars as pl

from .registry import FigureData, artifact

PACKAGE = "filegram_kit.memory.filegramos"
STAGES = {"input": "Input", "stage1": "Stage 1 · encode", "stage2": "Stage 2 · consolidate",
          "stage3": "Stage 3 · retrieve", "output": "Output"}
COLUMNS = ("stage", "kind", "parent", "node", "detail", "source_symbol", "target")
_COMMENT = re.compile(r"^\s+(\w+)\s*:[^#]*#\s*(.+?)\s*$")


def first_line(obj: object) -> str:
    doc = inspect.getdoc(obj) or ""
    return " ".join(doc.split("\n\n")[0].split())


def field_comments(cls: type) -> dict[str, str]:
    """Each dataclass field's inline comment (`name: type  # comment`) from the source of the class and
    its dataclass bases (the nearest definition wins; a class without source has none)."""
    found: dict[str, str] = {}
    for klass in cls.__mro__:
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        for line in source.splitlines():
            match = _COMMENT.match(line)
            if match:
                found.setdefault(match[1], match[2])
    return found


def _default(f: dataclasses.Field) -> str:
    if f.default is not dataclasses.MISSING:
        value = f.default
        return ", ".join(map(str, value)) if isinstance(value, tuple) else str(value)
    return "" if f.default_factory is dataclasses.MISSING else repr(f.default_factory())


def held_dataclasses(cls: type) -> dict[str, type]:
    """Field name -> the dataclass it holds (directly or inside a tuple / dict annotation)."""
    hints = typing.get_type_hints(cls)
    out = {}
    for name, hint in hints.items():
        for candidate in (hint, *typing.get_args(hint)):
            if dataclasses.is_dataclass(candidate):
                out[name] = candidate
                break
    return out


def _detail(*parts: str) -> str:
    """What a row says: its parts (type or default, inline comment) that are not empty."""
    return " — ".join(part for part in parts if part)


def _row(stage: str, kind: str, node: str, detail: str, symbol: str, parent: str = "", target: str = "") -> dict:
    return {"stage": stage, "kind": kind, "parent": parent, "node": node, "detail": detail,
            "source_symbol": symbol, "target": target}


def _fields(stage: str, kind: str, cls: type, parent: str) -> list[dict]:
    comments = field_comments(cls)
    symbol = f"{cls.__module__}.{cls.__qualname__}"
    return [_row(stage, kind, f.name, _detail(str(f.type), comments.get(f.name, "")), f"{symbol}.{f.name}", parent)
            for f in dataclasses.fields(cls)]


def stage1_rows() -> list[dict]:
    from ..memory.filegramos import engram
    from ..traces.cleaning import clean

    rows = [_row("input", "io", "Trajectories", first_line(clean), "filegram_kit.traces.cleaning.clean"),
            _row("stage1", "stage", "engram.encode", first_line(engram.encode), f"{PACKAGE}.engram.encode"),
            _row("stage1", "unit", "Engram", "one per session", f"{PACKAGE}.engram.Engram")]
    rows += _fields("stage1", "unit_field", engram.Engram, "Engram")
    for name, held in held_dataclasses(engram.Engram).items():
        rows += _fields("stage1", "unit_subfield", held, f"Engram.{name}")
    return rows + [_row("stage1", "edge", "Trajectories", "encode", f"{PACKAGE}.engram.encode", target="Engram")]


def ingest_parameters() -> list[tuple[str, str]]:
    """(name, default) of the FileGramOS parameters that shape the ingested memory (not the knobs)."""
    from ..memory.filegramos import FileGramOS

    skip = {"self", "progress"}
    return [(p.name, str(p.default)) for p in inspect.signature(FileGramOS.__init__).parameters.values()
            if p.name not in skip and p.kind is not inspect.Parameter.VAR_KEYWORD]


def stage2_rows() -> list[dict]:
    from ..memory.filegramos import channels, retrieve

    symbol = f"{PACKAGE}.channels.consolidate"
    rows = [_row("stage2", "stage", "channels.consolidate", first_line(channels.consolidate), symbol)]
    rows += [_row("stage2", "parameter", name, f"default {value}", f"{PACKAGE}.FileGramOS.{name}")
             for name, value in ingest_parameters()]
    for name in retrieve.CHANNELS:
        cls = getattr(channels, f"{name.capitalize()}Channel", None)
        detail = cls.__name__ if cls else "no channel dataclass in channels.py"
        rows.append(_row("stage2", "channel", name, detail, f"{PACKAGE}.retrieve.CHANNELS"))
        rows += _fields("stage2", "channel_field", cls, name) if cls else []
        rows.append(_row("stage2", "edge", "Engram", "consolidate", symbol, target=name))
    return rows


def stage3_rows() -> list[dict]:
    from ..memory.base import Context
    from ..memory.filegramos import retrieve

    symbol = f"{PACKAGE}.retrieve.build_context"
    rows = [_row("stage3", "stage", "retrieve.build_context", first_line(retrieve.build_context), symbol)]
    for position, (channel, title) in enumerate(retrieve.BLOCK_TITLES.items(), 1):
        block = f"{position}. {title}"
        rows.append(_row("stage3", "block", block, f"from the {channel} channel", f"{PACKAGE}.retrieve.BLOCK_TITLES"))
        if channel in retrieve.CHANNELS:
            rows.append(_row("stage3", "edge", channel, "block", symbol, target=block))
        rows.append(_row("stage3", "edge", block, "concatenated", symbol, target="Context"))
    comments = field_comments(retrieve.Knobs)
    rows.append(_row("stage3", "knobs", "Knobs", first_line(retrieve.Knobs), f"{PACKAGE}.retrieve.Knobs"))
    rows += [_row("stage3", "knob", f.name, _detail(f"default {_default(f)}", comments.get(f.name, "")),
                  f"{PACKAGE}.retrieve.Knobs.{f.name}", "Knobs") for f in dataclasses.fields(retrieve.Knobs)]
    rows.append(_row("stage3", "edge", "Knobs", "read at query time", symbol, target="Context"))
    rows.append(_row("output", "io", "Context", first_line(Context), "filegram_kit.memory.base.Context"))
    return rows + _fields("output", "io_field", Context, "Context")


def pipeline_frame() -> pl.DataFrame:
    """One row per node and per edge of the pipeline (kind `edge`: node -> target)."""
    return pl.DataFrame(stage1_rows() + stage2_rows() + stage3_rows(), schema=dict.fromkeys(COLUMNS, pl.String))


# -- drawing -------------------------------------------------------------------------------------------

WIDTH, FONT = 1400, 12
LINE, PAD, GAP, CHAR = 16.5, 8.0, 12.0, 6.9  # px: line height, box padding, gap between boxes, mean glyph width
X = {"input": (10, 140), "stage1": (165, 480), "stage2": (505, 860), "stage3": (885, 1225), "output": (1250, 1390)}
TOP = 96.0  # below the stage headers
FILL = {"io": "#eef1f4", "unit": "#e4eef8", "channel": "#e6f3e8", "parameter": "#f6f1e4", "block": "#f3e9f5",
        "knobs": "#f7ede4"}


@dataclass
class Box:
    key: str
    stage: str
    fill: str
    lines: list[str]
    y0: float = 0.0

    @property
    def height(self) -> float:
        return len(self.lines) * LINE + 2 * PAD

    @property
    def x(self) -> tuple[float, float]:
        return X[self.stage]


def _wrap(text: str, stage: str, first: str = "", rest: str = "") -> list[str]:
    """Lines that fit the stage's box width; `first` / `rest` prefix the first and the following lines."""
    width = int((X[stage][1] - X[stage][0] - 2 * PAD) / CHAR)
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest) or [first]


def _bullets(pairs: list[tuple[str, str]], stage: str) -> list[str]:
    """One bullet per (name, detail), continuation lines indented under the name."""
    return [line for name, detail in pairs for line in _wrap(f"{name}{detail}", stage, "· ", "   ")]


def _children(frame: pl.DataFrame, kind: str, parent: str) -> list[dict]:
    return list(frame.filter((pl.col("kind") == kind) & (pl.col("parent") == parent)).iter_rows(named=True))


def _type(detail: str) -> str:
    return detail.split(" — ")[0]


def boxes(frame: pl.DataFrame) -> list[Box]:
    """The boxes to draw, their text from the frame, stacked per stage column."""
    nodes = {(r["kind"], r["node"]): r for r in frame.iter_rows(named=True)}
    out = [Box("Trajectories", "input", FILL["io"],
               ["<b>Trajectories</b>", *_wrap(nodes["io", "Trajectories"]["detail"], "input")])]
    engram = ["<b>Engram</b> (one per session)"]
    for row in _children(frame, "unit_field", "Engram"):
        engram += _bullets([(row["node"], f": {_type(row['detail'])}")], "stage1")
        subs = [r["node"] for r in _children(frame, "unit_subfield", f"Engram.{row['node']}")]
        engram += _wrap(", ".join(subs), "stage1", "      ", "      ") if subs else []
    out.append(Box("Engram", "stage1", FILL["unit"], engram))
    params = ", ".join(f"{r['node']}={r['detail'].removeprefix('default ')}"
                       for r in frame.filter(pl.col("kind") == "parameter").iter_rows(named=True))
    out.append(Box("parameters", "stage2", FILL["parameter"], ["<b>ingest parameters</b>", *_wrap(params, "stage2")]))
    for row in frame.filter(pl.col("kind") == "channel").iter_rows(named=True):
        fields = [(r["node"], f": {_type(r['detail'])}") for r in _children(frame, "channel_field", row["node"])]
        out.append(Box(row["node"], "stage2", FILL["channel"],
                       [f"<b>{row['node']} channel</b> ({row['detail']})", *_bullets(fields, "stage2")]))
    for row in frame.filter(pl.col("kind") == "block").iter_rows(named=True):
        out.append(Box(row["node"], "stage3", FILL["block"],
                       [f"<b>{row['node']}</b>", *_wrap(row["detail"], "stage3")]))
    knobs = [(r["node"], f" = {r['detail'].removeprefix('default ').replace(' — ', ': ', 1)}")
             for r in _children(frame, "knob", "Knobs")]
    out.append(Box("Knobs", "stage3", FILL["knobs"],
                   ["<b>Knobs</b> (query time): name = default: meaning", *_bullets(knobs, "stage3")]))
    context = ["<b>Context</b>", *_wrap(nodes["io", "Context"]["detail"], "output"),
               *_bullets([(r["node"], "") for r in _children(frame, "io_field", "Context")], "output")]
    out.append(Box("Context", "output", FILL["io"], context))
    return _stack(out)


def _stack(items: list[Box]) -> list[Box]:
    """Top-align the boxes of each stage column; the one-box columns (input, output) are centred."""
    columns: dict[str, list[Box]] = {}
    for box in items:
        columns.setdefault(box.stage, []).append(box)
    tallest = max(sum(b.height for b in col) + GAP * (len(col) - 1) for col in columns.values())
    for col in columns.values():
        y = TOP + (tallest - col[0].height) / 2 if len(col) == 1 else TOP
        for box in col:
            box.y0, y = y, y + box.height + GAP
    return items


def _arrow(fig: go.Figure, tail: tuple[float, float], head: tuple[float, float]) -> None:
    fig.add_annotation(x=head[0], y=head[1], ax=tail[0], ay=tail[1], xref="x", yref="y", axref="x", ayref="y",
                       text="", showarrow=True, arrowhead=2, arrowsize=1.2, arrowwidth=1.4, arrowcolor="#5b6770")


def pipeline_figure(frame: pl.DataFrame) -> go.Figure:
    """Stage columns of boxes, arrows for the frame's edges (a block drawn once, its edges to it)."""
    drawn = {b.key: b for b in boxes(frame)}
    height = max(800, int(max(b.y0 + b.height for b in drawn.values()) + 30))
    fig = go.Figure()
    stages = frame.filter(pl.col("kind") == "stage")
    for stage, (x0, x1) in X.items():
        symbol = stages.filter(pl.col("stage") == stage)["node"].to_list()
        fig.add_shape(type="rect", x0=x0 - 6, x1=x1 + 6, y0=36, y1=height - 12, line_width=0,
                      fillcolor="#fafafa", layer="below")
        head = f"<b>{STAGES[stage]}</b>" + (f"<br><span style='font-size:11px'>{symbol[0]}</span>" if symbol else "")
        fig.add_annotation(x=(x0 + x1) / 2, y=40, text=head, showarrow=False, yanchor="top", font_size=13)
    for box in drawn.values():
        x0, x1 = box.x
        fig.add_shape(type="rect", x0=x0, x1=x1, y0=box.y0, y1=box.y0 + box.height, fillcolor=box.fill,
                      line=dict(color="#8a96a3", width=1))
        fig.add_annotation(x=x0 + PAD, y=box.y0 + PAD, text="<br>".join(box.lines), showarrow=False, xanchor="left",
                           yanchor="top", align="left", font_size=FONT)
    for row in frame.filter(pl.col("kind") == "edge").iter_rows(named=True):
        tail, head = drawn.get(row["node"]), drawn.get(row["target"])
        if tail and head:
            _arrow(fig, (tail.x[1], tail.y0 + tail.height / 2), (head.x[0], head.y0 + head.height / 2))
    fig.update_xaxes(range=[0, WIDTH], visible=False, fixedrange=True)
    fig.update_yaxes(range=[height, 0], visible=False, fixedrange=True)
    fig.update_layout(width=WIDTH, height=height, template="plotly_white", showlegend=False,
                      margin=dict(l=0, r=0, t=40, b=0), plot_bgcolor="white",
                      title=dict(text="Figure 6 (ours): the FileGramOS pipeline, read from the code", x=0.5))
    return fig


@artifact("figure06_filegramos_pipeline", paper="Figure 6", notebook="04_memory_channels", figure=True,
          title="Figure 6: the FileGramOS pipeline (Engram -> three channels -> query-time context), from the code",
          note="Every box is read from filegram_kit/memory/filegramos: Stage 1 the fields of `Engram` (and of the "
               "dataclasses it holds), Stage 2 the ingest parameters of `FileGramOS` and one box per name in "
               "`retrieve.CHANNELS` with its channel dataclass's fields, Stage 3 the blocks of `BLOCK_TITLES` in "
               "context order and the `Knobs` fields with their defaults. The CSV has one row per node and edge, "
               "with the symbol it comes from.")
def figure06_filegramos_pipeline() -> FigureData:
    frame = pipeline_frame()
    return FigureData(pipeline_figure(frame), frame)
