"""FileGramBench tables: paper Table 3 (main results) from our harness run, beside the paper's printed rows.

The run answers every item of `build_items(corpus, seed=s)` and `track4_items(corpus, seed=s)` (each
from its setting of the corpus, bench/track4.py) for s in ITEM_SEEDS with the offline
backend (lexical reader, WordLlama embeddings) for all 13 methods (the registry's; one not registered
is skipped with a warning), plus the controls (bench/controls.py), and the methods again on the items
of PACK_B_SEEDS on the corpus' style-pack-B twin (same seed, personas and tasks, other wording;
`style_pack_corpus`), whose items are the same. Rows go to
`<corpus>/../results/offline/table03-<corpus engine>[-B]-<items hash>-<code fingerprint>/` (for the
default corpus: data/results/offline/...), so rerunning `make reproduce` with unchanged code and
corpus reads the finished rows back, and any change of code, corpus or items starts a new folder.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import polars as pl

from ..bench.bootstrap import STAT_COLUMNS
from ..bench.schema import SUB_TRACKS
from ..bench.score import CHANNEL_COLUMNS
from ..memory.base import MEMORIES
from .registry import artifact
from .settings import FULL, TABLE3_METHODS, RunSettings, settings_of

OURS = FULL.ours  # "ours (offline backend)"; another backend's rows name it
CONTROL = "control (never ranked)"
ITEM_SEEDS = FULL.item_seeds  # item sets generated with these seeds, answered together (their ingests are shared)
PACK_B_SEEDS = FULL.pack_b_seeds  # the style-pack-B check answers item seed 0's 4,003 items
PAPER = "paper (Gemini 2.5-Flash)"
T4_COLUMNS = [abbr for track, abbr, *_ in SUB_TRACKS.values() if track == "T4_multimodal"]  # FileGrd, VisGrd


def ours_b(settings: RunSettings) -> str:
    seeds = ", ".join(map(str, settings.pack_b_seeds))
    return f"ours, style pack B, item seed {seeds} ({settings.backend} backend)"


OURS_B = ours_b(FULL)


def _registered(methods: tuple[str, ...] = TABLE3_METHODS) -> tuple[list[str], list[str]]:
    """(methods get_memory can build, methods it cannot) — a baseline still being written is skipped."""
    from ..memory import get_memory

    ready, missing = [], []
    for name in methods:
        try:
            get_memory(name)
        except (KeyError, ImportError, AttributeError):
            missing.append(name)
        else:
            ready.append(name)
    return ready, missing


def _note() -> str:
    missing = [m for m in TABLE3_METHODS if m not in MEMORIES]
    skipped = f" Not registered yet, so skipped: {', '.join(missing)}." if missing else ""
    return ("Our rows: every FileGramBench item of the four tracks built from the corpus with item seeds 0, 1 "
            "and 2 (scores: mean over the seeds' items), answered by the offline "
            "backend's lexical reader (not an LLM), so compare methods with each other, not with the paper's "
            "numbers. Track 4 is answered from the corpus' other settings (bench/track4.py): File Grounding from "
            "the multimodal one (outputs rendered as PDF, DOCX, PPTX, XLSX, images and audio, then parsed back), "
            "Visual Grounding from replayed screen recordings of engine sessions read back by OCR, not real "
            "participants' recordings. Sub-task columns: accuracy (%), ProfRec = rescaled Likert (0-100) of the "
            "offline judge, VisGrd = the rubric judge's 0-100 (operations, targets and naming of the session's "
            "second half); Proc/Sem/Epi count multiple-choice items only (File Grounding's among them); our Avg = "
            "mean of the nine sub-task columns (the paper's Avg fits no simple formula). Tok In = "
            "mean stored memory per persona, Tok Out = mean context per query (estimated tokens)."
            f"{skipped} Control rows (never ranked): chance = the expected score of a uniform guess; choices_only = a "
            "model of the options alone; observer_traces = the ideal observer of the traces alone (each session "
            "read by models fit on the other personas: what a perfect memory could reach); observer_engine = the "
            "ideal observer of what the engine recorded as "
            "expressed (100 by construction: items it cannot answer are redrawn); oracle = the ground truth; "
            "oracle_context = the shared reader given the ground truth in the options' words; oracle_paraphrased = "
            "the same truth in other words (the wording the reader was developed on), oracle_paraphrased_b = in a "
            "third wording it was never tuned on (together: the column's reading ceiling). The reader-limited row "
            "marks (1) each multiple-choice column where either is below chance + 25: no ordering is claimed there "
            "(table03_reader_limits). The reader reads options by what sets them apart (the slots where they "
            "differ, each on its own topic). It is shown each item's options in an order drawn per item, and "
            "every memory names an item's sessions by the labels its options use. Style pack B "
            "rows: the same methods on item seed 0's items of tracks 1-3, on the corpus re-worded by style pack B "
            "(same behaviour; table03_style_packs gives each method's change with its CI). VisRAG offline embeds "
            "each rendered page by its text (the offline backend has no vision; cohere embeds the page image). "
            "Paper rows: Table 3 as printed. CIs and paired differences: table03_intervals; ingest cost: "
            "table03_costs; File Grounding in the text vs the multimodal setting: table03_settings.")


def results_dir(corpus: Path, items: list, backend: str = "offline", kind: str = "table03") -> Path:
    """Where the run of these items on this corpus with this code and backend keeps its rows."""
    from ..bench.manifest import code_fingerprint, corpus_info, items_hash

    info = corpus_info(corpus)
    engine = info["engine"] or "unknown"
    pack = "" if info["style_pack"] in (None, "A") else f"-{info['style_pack']}"
    return corpus.resolve().parent / "results" / backend / f"{kind}-{engine}{pack}-{items_hash(items)[:12]}-" \
        f"{code_fingerprint()}"


def run_items(corpus: Path, methods: list, seeds: tuple[int, ...], settings: RunSettings, *, limit: int | None,
              workers: int | None, out: str | Path | None, progress: bool | None, controls: bool = False,
              kind: str = "table03", track4: bool = False) -> pl.DataFrame:
    """`methods`' (and, with `controls`, the controls') rows over the items of `seeds` (the first `limit` of
    each sub-task; default: the settings' limit, None = all), with the settings' backend, in one results
    folder (ingests shared by the seeds; a finished folder is read back). With `track4`, Track 4's items too,
    each answered from its setting of the corpus (bench/track4.py: built beside it on first use), their
    rows in a subfolder per setting; the controls read the ground truth, so they run on the corpus itself.
    Rows without errors are remembered for the process (the table03_* steps of one reproduce read the same)."""
    from ..bench.ground_truth import corpus_version
    from ..bench.manifest import code_fingerprint

    key = json.dumps([corpus_version(corpus), methods, seeds, settings.keyed(), limit, None if out is None else
                      str(Path(out).resolve()), controls, kind, track4, code_fingerprint()], default=str)
    if key in _ROWS:
        return _ROWS[key]
    rows = _run_items(corpus, methods, seeds, settings, limit=limit, workers=workers, out=out, progress=progress,
                      controls=controls, kind=kind, track4=track4)
    if rows["error"].null_count() == rows.height:
        _ROWS[key] = rows
        while len(_ROWS) > ROWS_MEMO:
            _ROWS.pop(next(iter(_ROWS)))
    return rows


ROWS_MEMO = 4  # finished row sets remembered per process (Table 3's, its style-pack-B twin's, the ablation's)
_ROWS: dict[str, pl.DataFrame] = {}


def _run_items(corpus: Path, methods: list, seeds: tuple[int, ...], settings: RunSettings, *, limit: int | None,
               workers: int | None, out: str | Path | None, progress: bool | None, controls: bool, kind: str,
               track4: bool) -> pl.DataFrame:
    from ..bench.controls import evaluate_controls
    from ..bench.generate import build_items
    from ..bench.harness import evaluate, load_results, select
    from ..bench.results import check_no_errors
    from ..bench.track4 import by_setting, setting_corpus, track4_items

    items = [i for s in seeds for i in build_items(corpus, seed=s)]
    extra = settings.of_track4([i for s in seeds for i in track4_items(corpus, seed=s)]) if track4 else []
    limit = settings.limit if limit is None else limit
    out = Path(out) if out is not None else results_dir(corpus, items + extra, settings.backend, kind)
    workers = settings.workers if workers is None else workers
    run = dict(backend=settings.backend, limit=limit, progress=progress, retry_errors=True)
    answers = len(select(items, limit)) * len(methods)
    evaluate(items, corpus, methods, out=out, **run, **settings.pool(workers, answers))
    frames = [load_results(out)]
    for setting, group in by_setting(extra).items():
        where = setting_corpus(corpus, setting, select(group, limit), workers=workers, progress=progress)
        evaluate(group, where, methods, out=out / setting, **run,
                 **settings.pool(workers, len(select(group, limit)) * len(methods)))
        frames.append(load_results(out / setting))
    chosen = select(items + extra, limit)
    if controls:
        evaluate_controls(chosen, corpus, out=out, backend=settings.backend)
        frames[0] = load_results(out)
    wanted = {i.question_id for i in chosen}
    rows = pl.concat(frames).filter(pl.col("question_id").is_in(list(wanted)))
    if not settings.allow_errors:
        check_no_errors(rows, out)
    return rows


def _run(corpus: Path, settings: RunSettings, *, limit: int | None, workers: int | None, out: str | Path | None,
         progress: bool | None, controls: bool = True, seeds: tuple[int, ...] | None = None,
         track4: bool = True) -> pl.DataFrame:
    """Every Table 3 method's (and control's) rows over the settings' item seeds, all four tracks."""
    ready, missing = _registered(settings.methods)
    if missing:
        warnings.warn(f"table03_main_results: skipping memories that are not registered: {', '.join(missing)}",
                      stacklevel=3)
    return run_items(corpus, ready, settings.item_seeds if seeds is None else seeds, settings, limit=limit,
                     workers=workers, out=out, progress=progress, controls=controls, track4=track4)


def _run_b(corpus: Path, settings: RunSettings, *, limit: int | None, workers: int | None, out: str | Path | None,
           progress: bool | None) -> pl.DataFrame:
    """The methods' rows on the corpus' style-pack-B twin (built beside it on first use) for the items of
    the settings' pack_b_seeds, no controls: they read the ground truth or the options, which a style pack
    does not change."""
    from .corpus_source import style_pack_corpus

    twin = style_pack_corpus(corpus, "B", progress=progress)
    return _run(twin, settings, limit=limit, workers=workers, out=None if out is None else Path(out) / "style_pack_b",
                progress=progress, controls=False, seeds=settings.pack_b_seeds, track4=False)


@artifact("table03_main_results", paper="Table 3", notebook="05_benchmark", corpus=True,
          title="Main results: FileGramBench accuracy per sub-task and channel, with memory and context tokens",
          note=_note())
def table03_main_results(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                         limit: int | None = None, workers: int | None = None, out: str | Path | None = None,
                         progress: bool | None = None) -> pl.DataFrame:
    from ..bench.analysis import split_controls
    from ..bench.score import COLUMNS, side_by_side, table3
    from .corpus_source import resolve_corpus

    corpus, settings = resolve_corpus(corpus), settings_of(settings)
    rows = _run(corpus, settings, limit=limit, workers=workers, out=out, progress=progress)
    methods, controls = split_controls(rows)
    table = side_by_side(table3(methods), ours_label=settings.ours, paper_label=PAPER)
    control_rows = table3(controls).select(pl.lit(CONTROL).alias("source"), *COLUMNS)
    parts = [table.filter(pl.col("source") == settings.ours)]
    if settings.pack_b_seeds:
        parts.append(table3(_run_b(corpus, settings, limit=limit, workers=workers, out=out, progress=progress))
                     .select(pl.lit(ours_b(settings)).alias("source"), *COLUMNS))
    return pl.concat([*parts, control_rows, limited_row(control_rows), table.filter(pl.col("source") == PAPER)])


@artifact("table03_costs", paper="Table 3", notebook="05_benchmark", corpus=True,
          title="What each memory costs: ingest per persona (calls, tokens) apart from query cost",
          note="Same run as table03_main_results (item seeds 0, 1, 2). Ingest: means over the persona input sets "
               "(each persona's 32 sessions), as a fresh build costs them; tokens (est.) = 4 characters per token of "
               "every backend call's prompt and reply, what an LLM backend would be sent; billed = what the "
               "provider reported (0 offline). Query: per answered item. The paper's Tok In is stored memory "
               "(Table 3's footnote), which is 'stored tokens' here. Seconds are left out (they change from run "
               "to run; BENCHMARKS.md times ingest and answering per method, and result rows keep ingest_s).")
def table03_costs(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                  limit: int | None = None, workers: int | None = None, out: str | Path | None = None,
                  progress: bool | None = None) -> pl.DataFrame:
    from ..bench.analysis import split_controls
    from ..bench.score import costs
    from .corpus_source import resolve_corpus

    corpus, settings = resolve_corpus(corpus), settings_of(settings)
    rows = split_controls(_run(corpus, settings, limit=limit, workers=workers, out=out, progress=progress))[0]
    return costs(rows).drop("ingest s", "query s")  # wall-clock seconds differ run to run: BENCHMARKS.md has them


READER_LIMITED = "reader-limited (1 = the reader cannot read the truth in other words: no ordering claimed)"


def limited_row(control_rows: pl.DataFrame) -> pl.DataFrame:
    """Table 3's marker row: 1 in a multiple-choice column that is reader-limited (bench.analysis.reader_limits), 0 in
    one that is not, empty where the controls do not say."""
    from ..bench.analysis import reader_limits

    limits = reader_limits(control_rows)
    row = {c: None for c in control_rows.columns} | {"source": READER_LIMITED, "method": "reader_limited",
                                                      "label": "reader_limited", "backend": "control/-"}
    row |= {r["column"]: float(r["reader_limited"]) for r in limits.iter_rows(named=True)}
    return pl.DataFrame([row], schema=control_rows.schema)


@artifact("table03_reader_limits", paper="Table 3", notebook="05_benchmark", corpus=True,
          title="Which Table 3 columns can rank memories: chance, what the traces carry, the truth in the options' "
                "words and in other words",
          note="Same run as table03_main_results. observer_traces = the ideal observer of the traces alone (each "
               "session read by models fit on the other personas): the evidence ceiling a perfect memory could "
               "reach. oracle_context = the shared reader given the ground truth in the "
               "options' own wording (a word matcher does well on it); oracle_paraphrased = the same truth in a second "
               "wording set sharing no content word with the question or options (bench/paraphrase.py, the set the "
               "reader was developed on); oracle_paraphrased_b = a third set, written apart from it and never tuned "
               "on. A column whose lower ceiling is below chance + 25 points is reader-limited: its method scores are "
               "reported, but no ordering of methods on it is claimed. wording_bound: the two ceilings more than 10 "
               "points apart (a reader that learnt a wording, not meaning).")
def table03_reader_limits(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                          limit: int | None = None, workers: int | None = None, out: str | Path | None = None,
                          progress: bool | None = None) -> pl.DataFrame:
    from ..bench.analysis import reader_limits, split_controls
    from ..bench.score import table3
    from .corpus_source import resolve_corpus

    rows = _run(resolve_corpus(corpus), settings_of(settings), limit=limit, workers=workers, out=out,
                progress=progress)
    return reader_limits(table3(split_controls(rows)[1]))


@artifact("table03_intervals", paper="Table 3", notebook="05_benchmark", corpus=True,
          title="Table 3 with persona-clustered 95% CIs, paired differences from FileGramOS, and the controls",
          note="Same run as table03_main_results (item seeds 0, 1, 2 pooled as the mean of per-seed scores). "
               "CIs resample personas (items of one persona are correlated); a difference is computed on the "
               "items both methods answered. Controls are reference points, never ranked.")
def table03_intervals(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                      limit: int | None = None, workers: int | None = None, out: str | Path | None = None,
                      progress: bool | None = None) -> pl.DataFrame:
    from ..bench.analysis import readout
    from .corpus_source import resolve_corpus

    rows = _run(resolve_corpus(corpus), settings_of(settings), limit=limit, workers=workers, out=out,
                progress=progress)
    parts = readout(rows)
    frames = [frame.select(pl.lit(part).alias("part"), pl.exclude("method", "params_hash"))
              for part, frame in parts.items() if frame.height]
    return pl.concat([*frames, _limits_part(rows, frames[0].columns if frames else [])], how="diagonal")


def _limits_part(rows: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """The intervals table's reader-limited row: per multiple-choice column 'yes (ceiling < needed)' or 'no'."""
    from ..bench.analysis import reader_limits, split_controls
    from ..bench.score import table3

    limits = reader_limits(table3(split_controls(rows)[1]))
    if limits.is_empty() or not columns:
        return pl.DataFrame()
    row = dict.fromkeys(columns, "–") | {"part": "reader_limits", "label": "reader-limited", "backend": "control/-"}
    for r in limits.iter_rows(named=True):
        verdict = "yes" if r["reader_limited"] else "no"
        second = "" if r["oracle_paraphrased_b"] is None else f" / {r['oracle_paraphrased_b']:.1f}"
        row[r["column"]] = f"{verdict} (ceilings {r['oracle_paraphrased']:.1f}{second}, needs {r['needed']:.1f})"
    return pl.DataFrame([row], schema=dict.fromkeys(columns, pl.String))


PACK_ROWS = ("pack A", "pack B", "B - A")


@artifact("table03_style_packs", paper="Table 3", notebook="05_benchmark", corpus=True,
          title="Table 3 on the style-pack-B corpus: each method's score with its wording changed, behaviour kept",
          note="Same items (item seed 0's 4,003) answered on the default corpus (pack A) and on its twin re-worded by "
               "style pack B (engine/style_packs.py: other headings, link words, file and folder names, same events). "
               "Scores with persona-clustered 95% CIs; B - A is paired on the same items. A method that reads "
               "behaviour scores alike on both; one that has learnt pack A's phrasing loses on B.")
def table03_style_packs(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                        limit: int | None = None, workers: int | None = None, out: str | Path | None = None,
                        progress: bool | None = None) -> pl.DataFrame:
    from ..bench.analysis import split_controls
    from .corpus_source import resolve_corpus

    corpus, settings = resolve_corpus(corpus), settings_of(settings)
    a = split_controls(_run(corpus, settings, limit=limit, workers=workers, out=out, progress=progress))[0]
    b = _run_b(corpus, settings, limit=limit, workers=workers, out=out, progress=progress)
    a = a.filter(pl.col("question_id").is_in(b["question_id"].unique().implode()))  # the same items on both
    return paired_table(a, b, PACK_ROWS, "corpus", [c for c in STAT_COLUMNS if c not in T4_COLUMNS])


def paired_table(a: pl.DataFrame, b: pl.DataFrame, names: tuple[str, str, str], key: str,
                  columns: list[str]) -> pl.DataFrame:
    """Per method (Table 3 order): its score on rows `a`, on rows `b` (the same items answered otherwise) and
    b - a paired on the items, each with its persona-clustered 95% CI; `key` names which of `names` a row is."""
    from ..bench.analysis import pack_differences
    from ..bench.bootstrap import bootstrap_scores, ci_table

    parts = [ci_table(bootstrap_scores(a, n_boot=1000)), ci_table(bootstrap_scores(b, n_boot=1000)),
             ci_table(pack_differences(a, b))]
    table = pl.concat([frame.with_columns(pl.lit(name).alias(key), pl.lit(k).alias("_k"))
                       for k, (name, frame) in enumerate(zip(names, parts, strict=True))])
    order = {m: k for k, m in enumerate(TABLE3_METHODS)}
    return (table.with_columns(pl.col("method").replace_strict(order, default=len(order)).alias("_m"))
            .sort("_m", "_k").select("label", key, "backend", *columns))


SETTING_ROWS = ("text", "multimodal", "multimodal - text")


def _run_file_grounding_text(corpus: Path, settings: RunSettings, *, limit: int | None, workers: int | None,
                             out: str | Path | None, progress: bool | None) -> pl.DataFrame:
    """The methods' rows for File Grounding's items answered from the text setting (the corpus itself):
    the other half of the pair whose multimodal half Table 3's run holds."""
    from ..bench.file_grounding import build_file_grounding
    from ..bench.harness import evaluate, select
    from ..bench.results import check_no_errors

    items = settings.of_track4([i for s in settings.item_seeds for i in build_file_grounding(corpus, seed=s)[0]])
    folder = Path(out) / "file_grounding_text" if out is not None else results_dir(
        corpus, items, settings.backend, "table03-text")
    workers, limit = settings.workers if workers is None else workers, settings.limit if limit is None else limit
    methods = _registered(settings.methods)[0]
    rows = evaluate(items, corpus, methods, backend=settings.backend, out=folder, limit=limit, progress=progress,
                    retry_errors=True, **settings.pool(workers, len(select(items, limit)) * len(methods)))
    if not settings.allow_errors:
        check_no_errors(rows, folder)
    return rows


@artifact("table03_settings", paper="Table 3", notebook="10_track4", corpus=True,
          title="File Grounding in the text and the multimodal setting: each method's change when outputs are "
                "rendered",
          note="Paper §6.1 compares a Text setting (Markdown outputs) with a Multimodal one (outputs rendered as "
               "PDFs and images, same event logs). Here the same File Grounding items (item seeds 0, 1, 2) are "
               "answered twice: from the text corpus, and from its multimodal setting (multimodal/: each output "
               "rendered as PDF, DOCX, PPTX, XLSX, page image, chart or narrated MP3, then read back by the one "
               "shared parser, so what a memory gets is the parse, with what the parse lost). Scores with "
               "persona-clustered 95% CIs; multimodal - text is paired on the same items. Offline no method "
               "ingests images natively (VisRAG embeds a page by its parsed text), so a change measures what the "
               "parse loses, not what vision could recover. FileGrd is accuracy (%); Proc / Sem / Epi are its "
               "items of that channel.")
def table03_settings(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                     limit: int | None = None, workers: int | None = None, out: str | Path | None = None,
                     progress: bool | None = None) -> pl.DataFrame:
    from ..bench.analysis import split_controls
    from .corpus_source import resolve_corpus

    corpus, settings = resolve_corpus(corpus), settings_of(settings)
    rows = split_controls(_run(corpus, settings, limit=limit, workers=workers, out=out, progress=progress))[0]
    multimodal = rows.filter(pl.col("sub_track") == "file_grounding")
    text = _run_file_grounding_text(corpus, settings, limit=limit, workers=workers, out=out, progress=progress)
    text = text.filter(pl.col("question_id").is_in(multimodal["question_id"].unique().implode()))
    return paired_table(text, multimodal, SETTING_ROWS, "setting", ["FileGrd", *CHANNEL_COLUMNS.values()])
