"""Scores in the layout of paper Table 3: one row per method and backend, from result rows alone.

    table = table3(load_results("runs/a"))
    print(format_table3(side_by_side(table)))      # ours, then the paper's printed rows, marked

Sub-task columns are accuracy (%) for multiple choice (mean score x 100), the mean rescaled Likert
(0-100) for free-form Profile Reconstruction and the rubric's 0-100 for free-form Visual Grounding.
Rows that hold an exception error (no score) count as 0: a method cannot gain by failing, and the
`errors` column says how many there were.
"""

from __future__ import annotations

import polars as pl

from .schema import CHANNELS, SUB_TRACKS

SUB_TASKS = {sub: abbr for sub, (_, abbr, _, _) in SUB_TRACKS.items()}  # sub_track -> column, paper order
CHANNEL_COLUMNS = dict(zip(CHANNELS, ("Proc", "Sem", "Epi"), strict=True))
FREE_FORM = tuple(sub for sub, (*_, options) in SUB_TRACKS.items() if options == (0, 0))  # rows without "mcq"
PERSONA_SUB_TRACKS = ("attribute_recognition", "profile_reconstruction")  # inputs = one persona's sessions
COLUMNS = ["method", "label", "backend", "Tok In", "Tok Out", *SUB_TASKS.values(), *CHANNEL_COLUMNS.values(),
           "Avg", "n", "errors"]
METHOD_LABELS = {"no_context": "No Context", "full_context": "Full Context", "naive_rag": "Naive RAG",
                 "eager_summary": "Eager Summ.", "visrag": "VisRAG", "mem0": "Mem0", "zep": "Zep", "memos": "MemOS",
                 "simplemem": "SimpleMem", "evermemos": "EverMemOS", "memu": "MemU", "mma": "MMA",
                 "filegramos": "FileGramOS"}
PAPER_BACKEND = "gemini/gemini-2.5-flash"
_SCHEMA = {"method": pl.String, "label": pl.String, "backend": pl.String, "Tok In": pl.Float64,
           "Tok Out": pl.Float64, **dict.fromkeys([*SUB_TASKS.values(), *CHANNEL_COLUMNS.values(), "Avg"], pl.Float64),
           "n": pl.Int64, "errors": pl.Int64}


def _paper_rows() -> pl.DataFrame:
    """Paper Table 3 as printed (spec 9.1): tokens in K, the printed Avg (which fits no formula of its columns)."""
    printed = [  # method, Tok In K, Tok Out K, AttrRec .. ShiftAna, FileGrd, VisGrd, Proc, Sem, Epi, Avg; None = "—"
        ("no_context", None, None, 36.2, 25.7, None, 17.4, 36.9, 19.0, 20.5, 23.8, None, 25.7, 38.2, 19.7, 25.4),
        ("full_context", 625.2, 45.9, 40.5, 31.1, 50.0, 30.6, 80.5, 36.8, 37.8, 42.5, 7.0, 50.7, 43.0, 37.3, 48.0),
        ("naive_rag", 625.2, 3.9, 48.2, 27.7, 46.8, 26.4, 64.1, 38.4, 20.1, 35.1, 5.5, 42.0, 49.3, 29.7, 40.5),
        ("eager_summary", 625.2, 3.7, 45.1, 29.6, 55.6, 39.3, 65.9, 59.7, 36.1, 44.0, 6.5, 49.8, 49.3, 48.4, 49.5),
        ("visrag", 609.8, 10.0, 53.4, 33.2, 56.3, 32.9, 72.8, 64.5, 35.4, 45.3, 7.0, 51.2, 55.2, 54.7, 51.9),
        ("mem0", 119.9, 3.0, 44.2, 26.4, 48.1, 21.4, 50.4, 23.8, 28.5, 29.5, 4.0, 33.4, 47.8, 26.0, 33.2),
        ("zep", 219.1, 3.8, 43.6, 28.4, 50.4, 27.4, 61.0, 37.5, 28.1, 35.4, 5.0, 41.3, 44.6, 33.0, 40.2),
        ("memos", 302.3, 4.2, 44.2, 24.8, 52.0, 23.0, 57.3, 26.3, 28.1, 32.0, 4.5, 37.2, 47.2, 27.2, 36.2),
        ("simplemem", 9.3, 3.5, 43.6, 20.2, 56.6, 28.2, 47.5, 21.8, 28.5, 29.0, 4.5, 33.3, 47.2, 26.2, 32.9),
        ("evermemos", 1098.9, 8.4, 48.8, 30.2, 57.7, 39.3, 62.2, 71.4, 38.9, 44.5, 7.5, 48.7, 50.8, 55.9, 49.9),
        ("memu", 293.6, 7.9, 47.9, 27.3, 50.4, 30.4, 65.7, 46.0, 33.0, 39.8, 6.0, 44.9, 49.3, 39.8, 44.4),
        ("mma", 331.8, 4.5, 51.2, 29.8, 51.8, 28.9, 57.4, 57.5, 32.6, 41.3, 5.5, 42.8, 51.6, 53.1, 44.7),
        ("filegramos", 109.7, 4.3, 50.6, 35.2, 54.2, 42.1, 80.9, 70.2, 37.8, 55.8, 8.5, 60.1, 54.6, 58.9, 59.6),
    ]
    scores = [*SUB_TASKS.values(), *CHANNEL_COLUMNS.values(), "Avg"]
    tokens = lambda k: None if k is None else float(round(k * 1000))  # noqa: E731 (625.2K as printed -> 625200)
    rows = [{"method": m, "label": METHOD_LABELS[m], "backend": PAPER_BACKEND, "Tok In": tokens(tin),
             "Tok Out": tokens(tout),
             **dict(zip(scores, values, strict=True)), "n": None, "errors": None}
            for m, tin, tout, *values in printed]
    return pl.DataFrame(rows, schema=_SCHEMA)


PAPER_TABLE3 = _paper_rows()


def row_points(results: pl.DataFrame) -> pl.DataFrame:
    """Per row: 0-100 points (MCQ score x 100, free-form rescaled Likert as is; no score = 0)."""
    mcq = pl.coalesce(pl.col("mcq"), ~pl.col("sub_track").is_in(FREE_FORM))
    score = pl.col("score").cast(pl.Float64).fill_null(0.0)
    return results.with_columns(mcq.alias("mcq"), pl.when(mcq).then(score * 100).otherwise(score).alias("points"))


def _stored_tokens(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Tok In per group: mean stored memory over distinct input sets of the persona sub-tasks (the paper's
    'per profile'), else over all distinct input sets."""
    sets = frame.filter(pl.col("memory_tokens").is_not_null()).unique([*keys, "input_key"], keep="first",
                                                                        maintain_order=True)
    persona = (sets.filter(pl.col("sub_track").is_in(PERSONA_SUB_TRACKS)).group_by(keys)
               .agg(pl.col("memory_tokens").mean().alias("persona")))
    every = sets.group_by(keys).agg(pl.col("memory_tokens").mean().alias("all"))
    return every.join(persona, on=keys, how="left").select(
        *keys, pl.coalesce("persona", "all").alias("Tok In"))


def table3(results: pl.DataFrame) -> pl.DataFrame:
    """Paper Table 3's layout, one row per (method, params, backend, model), from result rows.

    - Tok In: mean `memory_tokens` of the AttrRec/ProfRec input sets (one per persona: the paper's
      "stored memory per profile"); when a run has neither, the mean over all distinct input sets.
    - Tok Out: mean `context_tokens` per query.
    - AttrRec .. ShiftAna: accuracy (%) = mean score x 100; ProfRec = mean rescaled Likert (0-100).
    - Proc / Sem / Epi: accuracy (%) over the multiple-choice items of that channel; free-form
      (ProfRec) items do NOT count in the channel columns.
    - FileGrd: accuracy (%); VisGrd: the mean rubric score (0-100) of bench/visual_judge.py.
    - Avg: the unweighted mean of the sub-task columns that have items (our documented choice; the
      paper's Avg fits no simple formula, spec 9.1); a run without Track 4 averages seven columns.
    - n: rows (items attempted); errors: rows with an error (parse or exception), scored 0.
    A method run with several parameter sets gets one row each, labelled with the params hash.
    """
    keys = ["method", "params_hash", "backend", "model"]
    if results.is_empty():
        return pl.DataFrame(schema=_SCHEMA)
    frame = row_points(results)
    aggs = [pl.len().alias("n"), pl.col("error").is_not_null().sum().alias("errors"),
            pl.col("context_tokens").cast(pl.Float64).mean().alias("Tok Out")]
    aggs += [pl.col("points").filter(pl.col("sub_track") == sub).mean().alias(col) for sub, col in SUB_TASKS.items()]
    aggs += [pl.col("points").filter((pl.col("channel") == ch) & pl.col("mcq")).mean().alias(col)
             for ch, col in CHANNEL_COLUMNS.items()]
    table = frame.group_by(keys, maintain_order=True).agg(aggs).join(_stored_tokens(frame, keys), on=keys, how="left")
    several = table.group_by("method").agg(pl.col("params_hash").n_unique().alias("k")).filter(pl.col("k") > 1)
    label = pl.col("method").replace_strict(METHOD_LABELS, default=pl.col("method"), return_dtype=pl.String)
    table = table.with_columns(
        pl.when(pl.col("method").is_in(several["method"].implode()))
        .then(pl.format("{} [{}]", label, pl.col("params_hash").str.slice(0, 6))).otherwise(label).alias("label"),
        pl.format("{}/{}", "backend", "model").alias("backend"),
        pl.mean_horizontal(*SUB_TASKS.values()).alias("Avg"))
    scores = [*SUB_TASKS.values(), *CHANNEL_COLUMNS.values(), "Avg", "Tok In", "Tok Out"]
    return table.with_columns(pl.col(scores).cast(pl.Float64).round(1)).select(COLUMNS).cast(_SCHEMA)


COST_COLUMNS = ("ingest calls", "ingest tokens in (est.)", "ingest tokens out (est.)", "ingest tokens in (billed)",
                "ingest s", "stored tokens", "context tokens", "query s")


def costs(results: pl.DataFrame) -> pl.DataFrame:
    """Ingest cost per persona, separate from query cost, per (method, params, backend, model).

    Ingest columns are means over the distinct ProfRec input sets (one per persona: all its sessions; the
    AttrRec sets when a run has no ProfRec item), as a fresh build costs them (memory/stages.py replays the
    calls a remembered stage made):
    calls to the backend, the 4-characters-per-token estimate of those calls' prompts and replies (the
    same for every backend), the tokens the provider billed (0 offline) and seconds. Query columns are
    means over every answered item: the context's estimated tokens and the retrieve + answer seconds."""
    keys = ["method", "params_hash", "backend", "model"]
    if results.is_empty():
        return pl.DataFrame()
    label = pl.col("method").replace_strict(METHOD_LABELS, default=pl.col("method"), return_dtype=pl.String)
    whole = "profile_reconstruction" if results["sub_track"].eq("profile_reconstruction").any() else None
    persona = pl.col("sub_track") == whole if whole else pl.col("sub_track").is_in(PERSONA_SUB_TRACKS)
    sets = (results.filter(persona & pl.col("ingest_s").is_not_null())
            .unique([*keys, "input_key"], keep="first", maintain_order=True).group_by(keys, maintain_order=True)
            .agg(pl.col("ingest_calls").mean().alias(COST_COLUMNS[0]),
                 pl.col("ingest_est_tokens_in").mean().alias(COST_COLUMNS[1]),
                 pl.col("ingest_est_tokens_out").mean().alias(COST_COLUMNS[2]),
                 pl.col("ingest_tokens_in").mean().alias(COST_COLUMNS[3]),
                 pl.col("ingest_s").mean().alias(COST_COLUMNS[4]),
                 pl.col("memory_tokens").mean().alias(COST_COLUMNS[5]), pl.len().alias("personas")))
    query = results.group_by(keys, maintain_order=True).agg(pl.col("context_tokens").mean().alias(COST_COLUMNS[6]),
                                                            pl.col("latency_s").mean().alias(COST_COLUMNS[7]))
    table = sets.join(query, on=keys, how="left").with_columns(label.alias("label"),
                                                               pl.format("{}/{}", "backend", "model").alias("backend"))
    digits = {c: 3 if c.endswith(" s") else 1 if "calls" in c else 0 for c in COST_COLUMNS}
    rounded = [pl.col(c).cast(pl.Float64).round(digits[c]) for c in COST_COLUMNS]
    return table.with_columns(rounded).select("method", "label", "backend", *COST_COLUMNS, "personas")


def side_by_side(ours: pl.DataFrame, paper: pl.DataFrame = PAPER_TABLE3, *,
                 ours_label: str = "ours", paper_label: str = "paper (Gemini 2.5-Flash)") -> pl.DataFrame:
    """Our rows, then the paper's printed rows, with a leading `source` column."""
    return pl.concat([ours.select(pl.lit(ours_label).alias("source"), *COLUMNS),
                      paper.select(pl.lit(paper_label).alias("source"), *COLUMNS)])


def _cell(column: str, value: object) -> str:
    if value is None:
        return "–"
    if column.startswith("Tok") and isinstance(value, float | int):
        return f"{value / 1000:.1f}K" if value >= 1000 else f"{value:.0f}"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value).replace("|", "\\|")


def format_table3(frame: pl.DataFrame) -> str:
    """Markdown, tokens as 109.7K, scores with one decimal, missing as '–' (as the paper prints them)."""
    shown = [c for c in frame.columns if c not in ("method", "params_hash")]
    lines = ["| " + " | ".join(shown) + " |", "|" + "---|" * len(shown)]
    lines += ["| " + " | ".join(_cell(c, row[c]) for c in shown) + " |" for row in frame.iter_rows(named=True)]
    return "\n".join(lines) + "\n"
