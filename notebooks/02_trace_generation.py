import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import tempfile
    from pathlib import Path

    import marimo as mo
    import polars as pl

    import filegram_kit as fk
    from filegram_kit.engine import generate_trajectory
    from filegram_kit.notebook_args import autorun_mode, smoke_mode
    from filegram_kit.notebook_results import KeptResults, stale_note
    from filegram_kit.report import trace_views as tv
    from filegram_kit.widgets import TimelineBrowser
    from filegram_kit.workspace import ensure_template

    PROFILES = fk.load_profiles()
    TASKS = fk.load_tasks()
    SCRATCH = tempfile.TemporaryDirectory(prefix="filegram-nb02-")  # removed when the kernel exits
    WORK = Path(SCRATCH.name)


@app.cell
def _():
    mo.md(r"""
    # 02 · Trace generation

    FileGramEngine puts a persona in a sandboxed copy of a task's workspace and lets an offline agent
    do the task through file tools that record every operation as a typed event, with the content it
    wrote (paper §3.2). Pick a persona and a task, run the engine, and look at what it recorded: the
    event timeline, the workspace before and after, the content deltas, and a second persona doing
    the same task. The corpus-wide view is paper Table 5 and Figure 3 (`filegram reproduce`).
    """)
    return


@app.cell
def _():
    smoke = smoke_mode()  # `python notebooks/02_trace_generation.py -- --smoke` (or FILEGRAM_SMOKE=1): one small task
    autorun = autorun_mode()  # no button to press when run as a script or in Jupyter
    return autorun, smoke


@app.cell
def _(smoke):
    persona_a = mo.ui.dropdown(options=list(PROFILES), value="p3_efficient_executor" if smoke else "p1_methodical",
                               label="Persona")
    persona_b = mo.ui.dropdown(options=list(PROFILES), value="p1_methodical" if smoke else "p3_efficient_executor",
                               label="Compare with")
    task_pick = mo.ui.dropdown(options={f"{t.id} ({t.type}) {t.description[:40]}": t.id for t in TASKS.values()},
                               value=next(k for k in [f"{t.id} ({t.type}) {t.description[:40]}" for t in TASKS.values()]
                                          if k.startswith("T-09" if smoke else "T-05")), label="Task")
    seed = mo.ui.number(start=0, stop=10_000, value=0, label="Seed")
    run = mo.ui.run_button(label="Run the engine")
    mo.vstack([mo.hstack([persona_a, persona_b]), mo.hstack([task_pick, seed, run])])
    return persona_a, persona_b, run, seed, task_pick


@app.cell
def _():
    # the last runs by setting: a changed control keeps the last one on screen, marked stale (docs/notebooks.md)
    engine_runs = KeptResults("Run the engine")
    return (engine_runs,)


@app.cell
def _(autorun, engine_runs, persona_a, persona_b, run, seed, task_pick):
    def _run_engine():
        _task, _seed, _runs = fk.get_task(task_pick.value), int(seed.value), {}
        for _pid in mo.status.progress_bar(list(dict.fromkeys([persona_a.value, persona_b.value])), title="Running"):
            _folder = generate_trajectory(PROFILES[_pid], _task, WORK / f"signal-seed{_seed}", seed=_seed,
                                          workspace_cache=WORK / "workspaces")
            _runs[_pid] = fk.read_trajectory(_folder)
        return _runs, _runs[persona_a.value], _task, _seed

    _kept = engine_runs.get({"Persona": persona_a.value, "Compare with": persona_b.value, "Task": task_pick.value,
                             "Seed": int(seed.value)}, pressed=run.value, autorun=autorun, compute=_run_engine)
    mo.stop(_kept.value is None, mo.md("Press **Run the engine** to generate the two trajectories."))
    runs, first, task, run_seed = _kept.value  # an earlier setting's runs while the note says so
    mo.vstack([stale_note(_kept), mo.md(f"**{len(runs)} run(s)** of {task.id}, seed {run_seed}: "
                                        + ", ".join(f"`{r.id}`" for r in runs.values()))])
    return first, run_seed, runs, task


@app.cell
def _(runs):
    raw_frame = fk.events_frame(list(runs.values()))
    _cleaned, _report = fk.clean(list(runs.values()))
    behavior = fk.events_frame(_cleaned)
    mo.md(f"**{len(runs)} run(s) of {runs[next(iter(runs))].task_id}.** `clean()`: {_report}")
    return behavior, raw_frame


@app.cell
def _():
    show_metadata = mo.ui.switch(value=False, label="show simulation metadata (tool calls, LLM turns, snapshots ...)")
    show_metadata
    return (show_metadata,)


@app.cell
def _(first, raw_frame, show_metadata):
    tv.timeline_figure(raw_frame.filter(pl.col("trajectory_id") == first.id), metadata=show_metadata.value,
                       title=f"Event timeline: {first.id}")
    return


@app.cell
def _(runs):
    # the same timeline as a widget (also in JupyterLab): pick a run, click an event for its fields and content delta
    timeline_browser = mo.ui.anywidget(TimelineBrowser(list(runs.values())))
    timeline_browser
    return (timeline_browser,)


@app.cell
def _(first, run_seed, task):
    _before = tv.listing(ensure_template(task, WORK / "workspaces", seed=run_seed))
    _after = tv.snapshot_listing(first)  # the final fs_snapshot's tree blob
    mo.vstack([
        mo.md(f"## Workspace before and after ({first.id})\n`+` created, `-` gone. "
              f"{len(_before)} entries before, {len(_after)} after."),
        mo.hstack([mo.vstack([mo.md("**Before** (the task template)"), mo.plain_text(tv.tree_text(_before))]),
                   mo.vstack([mo.md("**After** (final snapshot)"),
                              mo.plain_text(tv.tree_text(_after, before=_before))])],
                  widths="equal"),
    ])
    return


@app.cell
def _(first, raw_frame):
    _picks = tv.content_events(raw_frame.filter(pl.col("trajectory_id") == first.id))
    delta_pick = mo.ui.dropdown(options=dict(_picks.select("label", "event_index").iter_rows()),
                                value=_picks["label"][-1] if _picks.height else None, label="Write / edit event")
    mo.vstack([mo.md("## Content deltas\nEvery write stores the new text, every edit its unified diff."),
               delta_pick if _picks.height else mo.md("_This run wrote no text files._")])
    return (delta_pick,)


@app.cell
def _(delta_pick, first):
    mo.stop(delta_pick.value is None)
    _kind, _text = tv.content_delta(first, int(delta_pick.value))
    mo.vstack([mo.md(f"`{_kind}` of event #{delta_pick.value}"), mo.plain_text(_text[:20_000])])
    return


@app.cell
def _(behavior, task):
    _counts = tv.event_type_counts(behavior)
    mo.vstack([
        mo.md(f"## Two personas, one task ({task.id})\nAtomic actions (the 12 types `clean()` keeps) and key "
              "behavior numbers side by side."),
        tv.counts_figure(_counts, title=f"Event types on {task.id}"),
        mo.hstack([mo.ui.table(_counts, selection=None), mo.ui.table(tv.compare_table(behavior), selection=None)],
                  widths="equal"),
    ])
    return


@app.cell
def _(runs):
    mo.ui.table(pl.DataFrame([{"persona": pid, "tiers A-F": PROFILES[pid].vector, "role": PROFILES[pid].role}
                              for pid in runs]),
                selection=None, label="The personas' tiers (Table 9): what their traces should reflect")
    return


@app.cell
def _():
    realism_run = mo.ui.run_button(label="Check realism over the full corpus")
    mo.vstack([mo.md(r"""
    ## Is the corpus realistic?

    If personas were trivially separable, every accuracy downstream would be meaningless. For each
    dimension a simple indicator per trajectory (searches, revisits, output size, folders, edits, deletes,
    charts and data files) and the AUC between tiers: where a task activates the dimension (Table 10)
    tiers separate, adjacent tiers overlap, and elsewhere it is close to chance (0.5). This builds (once,
    about 20 s on 2 cores) or reuses the full corpus in `data/corpus`.
    """), realism_run])
    return (realism_run,)


@app.cell
def _(autorun, realism_run, smoke):
    from filegram_kit.engine.realism import corpus_separability
    from filegram_kit.report.corpus_source import default_corpus

    # skipped with an `if`, not mo.stop: a Jupyter kernel (`make ipynb`) has no stop, it would be an error cell
    _skip = smoke or not (realism_run.value or autorun)
    None if _skip else mo.ui.table(corpus_separability(default_corpus()), selection=None, page_size=20)
    return


@app.cell
def _():
    store_run = mo.ui.run_button(label="Read the corpus both ways")
    mo.vstack([mo.md(r"""
    ## The columnar store

    A corpus keeps a Parquet copy of its events beside the release layout (`filegram store`, made by
    `filegram corpus` as it ends). Readers use it wherever it is current and fall back to the
    `events.json` files elsewhere, so the two reads below return the same trajectories; only the time
    differs. `status()` says which reader each trajectory gets.
    """), store_run])
    return (store_run,)


@app.cell
def _(autorun, smoke, store_run):
    import time

    from filegram_kit.notebook_corpus import corpus_or_small
    from filegram_kit.store import EventStore, update_store

    _skip = not (store_run.value or autorun)  # an `if`, not mo.stop (Jupyter has no stop)
    if not _skip:
        _corpus = corpus_or_small(smoke, WORK, ["p1", "p3"], ["T-01", "T-05"])
        update_store(_corpus, progress=False)
        _times = {}
        for _how in (True, False):
            _start = time.perf_counter()
            _trajs = fk.load_trajectories(_corpus, store=_how, check_media=False, progress=False)
            _times["store" if _how else "events.json"] = time.perf_counter() - _start
        _status = EventStore.open(_corpus).status()
    None if _skip else mo.vstack([
        mo.md(f"**{len(_trajs)} trajectories**: {_times['store']:.2f} s from the store, "
              f"{_times['events.json']:.2f} s from events.json."),
        mo.ui.table(_status.group_by("state").agg(pl.len().alias("trajectories"), pl.col("raw_events").sum(),
                                                  pl.col("events").sum().alias("behavioural events")),
                    selection=None)])
    return


@app.function
def test_a_run_records_a_full_session_in_its_workspace():
    with tempfile.TemporaryDirectory() as tmp:
        task = fk.get_task("T-09")
        traj = fk.read_trajectory(generate_trajectory(PROFILES["p3_efficient_executor"], task, Path(tmp) / "signal",
                                                      workspace_cache=Path(tmp) / "ws"))
        assert traj.events[0].event_type == "session_start" and traj.events[-1].event_type == "session_end"
        assert tv.snapshot_listing(traj, 0) == tv.listing(ensure_template(task, Path(tmp) / "ws"))


@app.function
def test_cleaning_keeps_only_the_timeline_without_metadata():
    with tempfile.TemporaryDirectory() as tmp:
        traj = fk.read_trajectory(generate_trajectory(PROFILES["p3_efficient_executor"], fk.get_task("T-09"),
                                                      Path(tmp) / "signal", workspace_cache=Path(tmp) / "ws"))
        timeline = tv.timeline_frame(fk.events_frame(traj))
        cleaned = fk.events_frame(fk.clean(traj).trajectories)
        assert timeline["event_type"].to_list() == cleaned["event_type"].to_list()


if __name__ == "__main__":
    app.run()
