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
    from filegram_kit.bench.schema import SUB_TRACKS
    from filegram_kit.memory.filegramos.retrieve import CHANNELS
    from filegram_kit.notebook_args import autorun_mode, project_dir, smoke_mode
    from filegram_kit.notebook_results import KeptResults, stale_note
    from filegram_kit.report.ablation_views import removal_figure
    from filegram_kit.report.bench_views import results_folder
    from filegram_kit.notebook_corpus import corpus_or_small
    from filegram_kit.report.corpus_source import ground_truth
    from filegram_kit.report.persona_spread import items_across_personas, spread_personas
    from filegram_kit.util.natural_order import natural_sorted

    # smoke mode: 4 contrasting personas x 6 tasks (every sub-task has items), built in a temporary folder
    SMOKE_PERSONAS = ["p1_methodical", "p3_efficient_executor", "p7_visual_reader", "p12_prolific_scanner"]
    SMOKE_TASKS = ["T-01", "T-02", "T-03", "T-05", "T-09", "T-16"]
    FIGURES = project_dir() / "figures"
    SCRATCH = tempfile.TemporaryDirectory(prefix="filegram-nb06-")  # removed when the kernel exits
    WORK = Path(SCRATCH.name)


@app.cell
def _():
    mo.md(r"""
    # 06 · Channel ablation (paper Table 13)

    FileGramOS answers from three channels: **procedural** (how the user acts: the L/M/R reading of each
    dimension and feature statistics), **semantic** (what they wrote: metadata, previews, chunks) and
    **episodic** (how sessions relate: clusters, anomalous sessions, episode narratives). Removing one
    channel from the retrieved context, and nothing else, says what that channel contributes.

    The channels are read at retrieval, so one ingest per input set serves every setting
    (`MemorySystem.adopt`): a variant costs only its answers. Each change is **paired**: the variant minus
    the full model on the same items, with a persona-clustered 95% CI (a replicate redraws personas,
    since items about one persona share its traces). A change whose CI holds 0 is not a finding.
    """)
    return


@app.cell
def _():
    smoke = smoke_mode()  # `python notebooks/06_channel_ablation.py -- --smoke` (or FILEGRAM_SMOKE=1)
    autorun = autorun_mode()  # no button to press as a script or in Jupyter
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
    keep = mo.ui.multiselect(options=list(CHANNELS), value=list(CHANNELS), label="Your channels")
    who = mo.ui.multiselect(options=personas, value=spread, label="Personas")
    subtasks = mo.ui.multiselect(options=list(SUB_TRACKS), value=list(SUB_TRACKS), label="Sub-tasks")
    limit = mo.ui.slider(steps=[2, 5, 10, 20, 50, 100, 1000], value=5 if smoke else 20, label="Items per sub-task")
    run = mo.ui.run_button(label="Run the ablation")
    mo.vstack([mo.md("Pick the channels of **your** setting (it joins the full model and the three single "
                     "removals), the personas and sub-tasks to run on, and how many items per sub-task:"),
               mo.hstack([keep, who], justify="start"), mo.hstack([subtasks, limit], justify="start"), run])
    return keep, limit, run, subtasks, who


@app.cell
def _(keep):
    variants = ablation.channel_ablation()
    if tuple(keep.value) not in [tuple(v.knobs.get("channels", CHANNELS)) for v in variants]:
        variants.append(ablation.Variant("your channels: " + " + ".join(keep.value or ["none"]),
                                         {"channels": tuple(keep.value)}, variants[0].label, "yours"))
    return (variants,)


@app.cell
def _():
    # the last results by setting: a changed control keeps the last one on screen, marked stale (see docs/notebooks.md)
    ablation_runs = KeptResults("Run the ablation")
    return (ablation_runs,)


@app.cell
def _(ablation_runs, autorun, corpus, items, keep, limit, run, subtasks, variants, who):
    _chosen = [i for i in items if i.profile_id in who.value and i.sub_track in subtasks.value]
    _picked = items_across_personas(_chosen, limit.value)  # the limit taken in turn from each persona
    mo.stop(not _picked, mo.md("No items for that choice: pick at least one persona and one sub-task."))

    def _answer():
        with mo.status.spinner(title=f"{len(variants)} settings on up to {limit.value} items per sub-task ..."):
            _rows = evaluate(_picked, corpus, ablation.as_methods(variants),
                             out=results_folder(WORK / "runs", _picked), workers=1)
            return (_rows, ablation.ablation_table(_rows, variants, n_boot=500),
                    ablation.variant_changes(_rows, variants, n_boot=500), len(variants))

    _kept = ablation_runs.get({"Your channels": keep.value, "Personas": who.value, "Sub-tasks": subtasks.value,
                               "Items per sub-task": limit.value}, pressed=run.value, autorun=autorun, compute=_answer)
    mo.stop(_kept.value is None, mo.md("Press **Run the ablation**."))
    rows, table, _changes, _settings = _kept.value
    mo.vstack([stale_note(_kept),
               mo.md(f"### Your run: {rows['question_id'].n_unique()} items x {_settings} settings"),
               mo.ui.table(table, selection=None),
               mo.ui.plotly(removal_figure(_changes).figure) if _changes.height else mo.md("No changes to draw.")])
    return rows, table


@app.cell
def _():
    _path = FIGURES / "table13_channel_ablation.csv"
    _full = pl.read_csv(_path) if _path.is_file() else None
    _paper = FIGURES / "paper_vs_ours.csv"
    _vs = pl.read_csv(_paper).filter(pl.col("table") == "Table 13") if _paper.is_file() else None
    mo.vstack([
        mo.md("## The full Table 13 (`make reproduce`: all personas, item seed 0's items)"),
        mo.ui.table(_full, selection=None) if _full is not None else mo.md("Run `make reproduce` to write it."),
        mo.md("**Paper vs ours** (the paper prints only the full-model row and the removals' Avg changes; "
              "our numbers are offline: the lexical reader, not Gemini):"),
        mo.ui.table(_vs, selection=None) if _vs is not None else mo.md("(not written yet)"),
    ])
    return


if __name__ == "__main__":
    app.run()
