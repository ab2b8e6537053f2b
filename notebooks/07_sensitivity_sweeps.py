import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import tempfile
    from pathlib import Path

    import marimo as mo
    import polars as pl

    from filegram_kit.bench import ablation
    from filegram_kit.bench.generate import build_items
    from filegram_kit.bench.harness import evaluate
    from filegram_kit.memory.filegramos import Knobs
    from filegram_kit.notebook_args import autorun_mode, project_dir, smoke_mode
    from filegram_kit.notebook_results import KeptResults, stale_note
    from filegram_kit.report.ablation_views import sweep_figure
    from filegram_kit.report.bench_views import results_folder
    from filegram_kit.notebook_corpus import corpus_or_small
    from filegram_kit.report.corpus_source import ground_truth
    from filegram_kit.report.persona_spread import items_across_personas, spread_personas
    from filegram_kit.util.natural_order import natural_sorted

    SMOKE_PERSONAS = ["p1_methodical", "p3_efficient_executor", "p7_visual_reader", "p12_prolific_scanner"]
    SMOKE_TASKS = ["T-01", "T-02", "T-03", "T-05", "T-09", "T-16"]
    SWEEPS = ablation.TABLE14_SWEEPS  # the paper's values per knob (the library's own)
    DEFAULT = Knobs()
    FIGURES = project_dir() / "figures"
    SCRATCH = tempfile.TemporaryDirectory(prefix="filegram-nb07-")  # removed when the kernel exits
    WORK = Path(SCRATCH.name)


@app.cell
def _():
    mo.md(r"""
    # 07 · Sensitivity sweeps (paper Table 14)

    FileGramOS's retrieval has knobs: how many characters of each retrieved chunk and episode narrative
    are shown (`display_chars`), how much of each created file's preview (`preview_chars`), how many files
    per session (`files_per_task`), whether edit diffs are shown (`edit_chains`) and whether previews are
    shown at all (`content_previews`). All are read at retrieval, so one ingest serves every setting.

    Set a base setting with the controls, then sweep: each knob in turn goes over the paper's values with
    the others held at your base. Every point has a persona-clustered 95% CI; the hover text gives the
    paired change from the base value. With the offline lexical reader, small knobs move little: read
    the CIs before reading a ranking.
    """)
    return


@app.cell
def _():
    smoke = smoke_mode()  # `python notebooks/07_sensitivity_sweeps.py -- --smoke` (or FILEGRAM_SMOKE=1)
    autorun = autorun_mode()
    return autorun, smoke


@app.cell
def _(smoke):
    with mo.status.spinner(title="Checking the corpus and building its items ..."):
        corpus = corpus_or_small(smoke, WORK, SMOKE_PERSONAS, SMOKE_TASKS)
        items = build_items(corpus, seed=0)
    personas = natural_sorted({i.profile_id for i in items})
    # 6 personas far apart on the dimension grid: real intervals (a CI needs >= 5 personas) at interactive speed
    spread = spread_personas(ground_truth(corpus)[0], among=personas)
    mo.md(f"**{len(items):,} items** of item seed 0 on `{corpus}` ({len(personas)} personas).")
    return corpus, items, personas, spread


@app.cell
def _(personas, smoke, spread):
    display_chars = mo.ui.slider(steps=sorted(SWEEPS["display_chars"]), value=DEFAULT.display_chars,
                                 label="display_chars")
    preview_chars = mo.ui.dropdown(options=[str(v) for v in sorted(SWEEPS["preview_chars"])],
                                   value=str(DEFAULT.preview_chars), label="preview_chars")
    files_per_task = mo.ui.dropdown(options=[str(v) for v in sorted(SWEEPS["files_per_task"])],
                                    value=str(DEFAULT.files_per_task), label="files_per_task")
    edit_chains = mo.ui.checkbox(value=DEFAULT.edit_chains, label="edit_chains")
    content_previews = mo.ui.checkbox(value=DEFAULT.content_previews, label="content_previews")
    who = mo.ui.multiselect(options=personas, value=spread, label="Personas")
    limit = mo.ui.slider(steps=[2, 5, 10, 20, 50, 100, 1000], value=5 if smoke else 20, label="Items per sub-task")
    run = mo.ui.run_button(label="Sweep every knob")
    mo.vstack([mo.md("**Base setting** (one control per Table 14 knob), and what to run on:"),
               mo.hstack([display_chars, preview_chars, files_per_task], justify="start"),
               mo.hstack([edit_chains, content_previews], justify="start"),
               mo.hstack([who, limit], justify="start"), run])
    return content_previews, display_chars, edit_chains, files_per_task, limit, preview_chars, run, who


@app.cell
def _(content_previews, display_chars, edit_chains, files_per_task, preview_chars):
    base = {"display_chars": display_chars.value, "preview_chars": int(preview_chars.value),
            "files_per_task": int(files_per_task.value), "edit_chains": edit_chains.value,
            "content_previews": content_previews.value}
    variants = ablation.sweep(base)
    mo.md(f"Base: `{base}` → **{len(ablation.as_methods(variants))} distinct settings** to answer.")
    return base, variants


@app.cell
def _():
    # the last sweeps by setting: a changed control keeps the last one on screen, marked stale (docs/notebooks.md)
    sweep_runs = KeptResults("Sweep every knob")
    return (sweep_runs,)


@app.cell
def _(autorun, base, corpus, items, limit, run, sweep_runs, variants, who):
    _picked = items_across_personas([i for i in items if i.profile_id in who.value], limit.value)  # in turns
    mo.stop(not _picked, mo.md("Pick at least one persona."))

    def _sweep():
        with mo.status.spinner(title=f"Answering {len(ablation.as_methods(variants))} settings ..."):
            _rows = evaluate(_picked, corpus, ablation.as_methods(variants),
                             out=results_folder(WORK / "runs", _picked), workers=1)
            return ablation.sweep_frame(_rows, variants, n_boot=500)

    _kept = sweep_runs.get({"Base setting": base, "Personas": who.value, "Items per sub-task": limit.value},
                           pressed=run.value, autorun=autorun, compute=_sweep)
    mo.stop(_kept.value is None, mo.md("Press **Sweep every knob**."))
    mo.vstack([stale_note(_kept), mo.ui.plotly(sweep_figure(_kept.value).figure),
               mo.ui.table(_kept.value.drop("is_base"), selection=None)])
    return


@app.cell
def _():
    _path = FIGURES / "table14_sensitivity.csv"
    _paper = FIGURES / "paper_vs_ours.csv"
    _vs = pl.read_csv(_paper).filter(pl.col("table") == "Table 14") if _paper.is_file() else None
    mo.vstack([
        mo.md("## The full Table 14 (`make reproduce`: all personas, item seed 0's items, the paper's rows)"),
        mo.ui.table(pl.read_csv(_path), selection=None) if _path.is_file()
        else mo.md("Run `make reproduce` to write it."),
        mo.md("**Paper vs ours** (ours: the offline lexical reader, not Gemini):"),
        mo.ui.table(_vs, selection=None) if _vs is not None else mo.md("(not written yet)"),
    ])
    return


if __name__ == "__main__":
    app.run()
