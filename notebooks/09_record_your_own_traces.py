import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import tempfile
    from pathlib import Path

    import marimo as mo
    import polars as pl

    import filegram_kit as fk
    from filegram_kit.record import (
        DEFAULT_IGNORE,
        DEFAULT_REDACTIONS,
        PrivacyPolicy,
        Recording,
        import_shell_history,
        observations_frame,
        write_sessions,
    )
    from filegram_kit.memory.filegramos.neighbours import persona_neighbours
    from filegram_kit.notebook_args import autorun_mode, smoke_mode
    from filegram_kit.record.demo import demo_session, seed_folder
    from filegram_kit.notebook_corpus import corpus_or_small
    from filegram_kit.report.corpus_source import ground_truth

    # smoke mode compares you with 4 contrasting personas x 6 tasks (built in a few seconds)
    SMOKE_PERSONAS = ["p1_methodical", "p3_efficient_executor", "p7_visual_reader", "p12_prolific_scanner"]
    SMOKE_TASKS = ["T-01", "T-02", "T-03", "T-05", "T-09", "T-16"]
    SCRATCH = tempfile.TemporaryDirectory(prefix="filegram-nb09-")  # removed when the kernel exits
    WORK = Path(SCRATCH.name)
    LIVE: dict = {}  # the running Recording, kept across cell runs


@app.cell
def _():
    mo.md(r"""
    # 09 · Record your own traces

    The personas' traces come from a simulated agent. This notebook records **yours**: a watchdog
    observer (inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows) watches a folder
    while you work in it, and every file operation becomes the same typed event the engine writes
    (`file_write`, `file_edit` with its diff, `file_move` / `file_rename`, `file_copy`, `file_delete`,
    `dir_create`, and on Linux `file_read`). Observations go to a crash-safe journal first; stopping
    turns them into sessions (a pause over the idle gap starts a new one) in the release layout, so
    everything else in the workbench (fingerprints, drift, FileGramOS, the bench) reads them as is.

    Nothing leaves your machine. Version-control folders, editor swap files and anything in a
    `.filegramignore` are never recorded; you can keep metadata only and redact patterns below.
    """)
    return


@app.cell
def _():
    smoke = smoke_mode()  # `python notebooks/09_record_your_own_traces.py -- --smoke` (or FILEGRAM_SMOKE=1)
    autorun = autorun_mode()  # scripted or in Jupyter: record the demo session, no buttons
    return autorun, smoke


@app.cell
def _():
    demo_folder = seed_folder(WORK / "demo")  # a few notes and a table, to work on if you like
    folder = mo.ui.text(value=str(demo_folder), label="Folder to record", full_width=True)
    metadata_only = mo.ui.checkbox(label="metadata only (no file content)")
    redact = mo.ui.checkbox(label="redact emails, API keys, passwords")
    idle_gap = mo.ui.slider(1, 120, value=30, label="idle gap (minutes) between sessions")
    mo.vstack([mo.md("**What to record.** The default is a scratch folder seeded with three files; point it "
                     "at a folder of your own to record yourself."),
               folder, mo.hstack([metadata_only, redact, idle_gap], justify="start")])
    return demo_folder, folder, idle_gap, metadata_only, redact


@app.cell
def _(metadata_only, redact):
    policy = PrivacyPolicy(ignore=DEFAULT_IGNORE, metadata_only=metadata_only.value,
                           redact=DEFAULT_REDACTIONS if redact.value else ())
    mo.accordion({"What is never recorded (ignore patterns)": mo.md(
        ", ".join(f"`{p}`" for p in policy.ignore) + "; plus the patterns of any `.filegramignore`.")})
    return (policy,)


@app.cell
def _():
    start = mo.ui.run_button(label="Start recording")
    stop = mo.ui.run_button(label="Stop and write trajectories")
    mo.hstack([start, stop], justify="start")
    return start, stop


@app.cell
def _(autorun, folder, idle_gap, policy, start):
    _running = LIVE.get("rec") is not None and LIVE["rec"].state == "running"
    if _running:  # a new start, or a changed setting: finish the current recording first (its sessions are kept)
        LIVE["rec"].stop()
    mo.stop(not (start.value or autorun), mo.md("Press **Start recording**, then work in the folder."
                                                + (" (Changing a setting stopped and saved the last recording.)"
                                                   if _running else "")))
    LIVE["rec"] = Recording(folder.value, WORK / "mine", policy=policy, idle_gap_ms=idle_gap.value * 60_000,
                            debounce_ms=200).start()
    recording = LIVE["rec"]
    mo.md(f"Recording **{recording.folder}** (reads "
          f"{'are' if recording.status()['reads_observed'] else 'are not'} reported on this platform). "
          "The table below refreshes every second.")
    return (recording,)


@app.cell
def _(autorun, demo_folder, recording):
    # scripted runs do the demo work themselves; in the editor, work in the folder (or press the button)
    demo = mo.ui.run_button(label="Do the demo work for me (10 steps)")
    scripted = demo_session(demo_folder, pause=0.3) if autorun and recording.folder == demo_folder.resolve() else []
    mo.vstack([demo, mo.md(f"Demo steps done: {', '.join(scripted)}" if scripted else "")])
    return demo, scripted


@app.cell
def _(demo, demo_folder):
    # an `if`, not mo.stop: a Jupyter kernel (`make ipynb`) has no stop, it would be an error cell
    mo.md("Done: " + ", ".join(demo_session(demo_folder, pause=0.3))) if demo.value else None
    return


@app.cell
def _(recording):
    refresh = mo.ui.refresh(default_interval="1s", label="live")
    refresh
    return (refresh,)


@app.cell
def _(recording, refresh):
    refresh
    _frame = observations_frame(recording.tail(25))
    mo.vstack([mo.md(f"**{recording.status()['observations']} observations** so far (the last 25; "
                     "`baseline` rows are the files that were already there)"),
               mo.ui.table(_frame, selection=None)])
    return


@app.cell
def _(autorun, recording, scripted, stop):
    _ = scripted  # (stop after the scripted demo work, when there is some)
    mo.stop(not (stop.value or autorun), mo.md("Press **Stop and write trajectories** when you are done."))
    written = recording.stop() if recording.state == "running" else (recording.trajectories or [])
    trajs = fk.clean(fk.load_trajectories(WORK / "mine")).trajectories if written else []
    mo.md(f"Wrote **{len(written)} session(s)**: " + ", ".join(f"`{p.name}`" for p in written)
          if written else "Nothing happened in the folder: no session written.")
    return (trajs,)


@app.cell
def _(trajs):
    mo.stop(not trajs)
    _events = fk.events_frame(trajs)
    mo.vstack([mo.md("**Your behavioral events** (cleaned, paths anonymised), by type:"),
               mo.ui.table(_events.group_by("event_type").len().sort("len", descending=True), selection=None),
               mo.ui.table(_events.select("trajectory_id", "event_type", "file_path").head(40), selection=None)])
    return


@app.cell
def _(smoke, trajs):
    mo.stop(not trajs)
    with mo.status.spinner(title="Fingerprinting you and the personas ..."):
        corpus = corpus_or_small(smoke, WORK, SMOKE_PERSONAS, SMOKE_TASKS)
        personas, _ = ground_truth(corpus)
        mine = fk.fingerprints(trajs)
        theirs = fk.fingerprints(fk.clean(fk.load_trajectories(corpus, progress=False)).trajectories)
        neighbours = persona_neighbours(mine, theirs, personas, k=3)
    mo.vstack([mo.md("**Your 17-D fingerprint** per session (paper Table 6):"), mo.ui.table(mine, selection=None)])
    return (neighbours,)


@app.cell
def _(neighbours):
    _first = neighbours.filter(pl.col("rank") == 1).select("dimension", "name", "reading", "reading_label",
                                                            "confidence", "persona", "persona_tier", "distance")
    mo.vstack([mo.md(r"""
    **Where you sit among the personas.** `reading` is FileGramOS's calibrated L/M/R reading of your mean
    fingerprint (the reading its procedural channel gives any user); `persona` is the persona whose mean
    fingerprint on that dimension's features is nearest, in units of the features' spread over the
    persona sessions. A short demo session is a thin sample: the reading of one session is noisy.
    """), mo.ui.table(_first, selection=None),
        mo.accordion({"The 3 nearest personas per dimension": mo.ui.table(neighbours.drop("features"),
                                                                          selection=None)})])
    return


@app.cell
def _():
    mo.md(r"""
    ## No live recording? Import your shell history

    `filegram import shell ~/.zsh_history --root ~/work --out data/mine` maps the release's bash rules
    (`ls` → browse, `mkdir` → dir_create, `mv` → move / rename, `rm` → delete, `cp` → copy, `cat` /
    `less` / `head` → read, `grep` / `find` → search). Edit the history below and see what it yields;
    what a history cannot tell (globs, variables, paths outside the root) is counted, never guessed.
    """)
    return


@app.cell
def _():
    history = mo.ui.text_area(full_width=True, rows=8, value="\n".join([
        ": 1790000000:0;cd ~/work", ": 1790000010:0;ls", ": 1790000020:0;mkdir -p reports/2026",
        ": 1790000030:0;cat notes.md | grep budget", ": 1790000040:0;vim reports/2026/summary.md",
        ": 1790000050:0;cp reports/2026/summary.md reports/2026/summary.md.bak",
        ": 1790000060:0;mv reports/2026/summary.md reports/2026/q3-summary.md", ": 1790000070:0;rm *.tmp"]))
    history
    return (history,)


@app.cell
def _(history):
    _file = WORK / "history.zsh"
    _file.write_text(history.value + "\n", encoding="utf-8")
    imported = import_shell_history(_file, root="/home/user/work", home="/home/user")
    _paths = write_sessions(imported.observations, WORK / "shell", name="shell")
    _events = fk.events_frame(fk.clean(fk.load_trajectories(_paths[0])).trajectories) if _paths else None
    mo.vstack([mo.md(f"```\n{imported.report}\n```"), mo.ui.table(observations_frame(imported.observations),
                                                                    selection=None),
               mo.ui.table(_events.select("event_type", "file_path"), selection=None) if _events is not None
               else mo.md("No file operation in this history.")])
    return


@app.cell
def _():
    mo.md(r"""
    ## Real users beyond counts: who typed this?

    The PU data (8 Purdue users' command streams, shipped in `filegram_kit/data/pu/`) has command names only:
    `filegram import commands USER3 --user user3 --block 100` keeps every command as a tool call, and the
    file commands as their actions. The 17-D fingerprint then sees counts of file actions; the habit model
    (`filegram_kit.behaviour.habit`) sees which command follows which. Identification: each user's first 1,500 commands
    train, every later block of 100 is attributed; masquerade: other users' blocks spliced in. `_lo`/`_hi` are
    95% intervals drawing users (few users: wide); `shuffled_identification` trains with the users' names
    permuted and should sit at chance. The full table (all 8 users) is `pu_masquerade` in `figures/`
    (`filegram reproduce`).
    """)
    return


@app.cell
def _():
    pu_users = mo.ui.slider(2, 8, value=2, step=1, label="PU users")  # 8: the full table (~10 s)
    pu_users
    return (pu_users,)


@app.cell
def _(pu_users):
    from filegram_kit.behaviour.masquerade import pu_table, stream_blocks
    from filegram_kit.behaviour.pu import pu_trajectories

    pu_blocks = stream_blocks(dict(list(pu_trajectories(100).items())[:pu_users.value]))
    pu_result = pu_table(pu_blocks, train=1500, test=500)
    mo.vstack([mo.md(f"**{pu_users.value} users** (identification chance {1 / pu_users.value:.3f}):"),
               mo.ui.table(pu_result.with_columns(pl.col(pl.Float64).round(3)), selection=None)])
    return pu_blocks, pu_result


@app.cell
def _(pu_result):
    def test_the_habit_model_tells_real_users_apart_where_the_fingerprint_cannot():
        by = {(r["detector"], r["setting"]): r for r in pu_result.iter_rows(named=True)}
        habit, counts = by[("habit Markov", "one-class")], by[("17-D fingerprint", "one-class")]
        assert habit["identification"] > counts["identification"] and habit["masquerade_auc"] > 0.8
        assert habit["shuffled_identification"] < habit["identification_lo"]  # the control finds no leak
    return


@app.cell
def _():
    mo.md(r"""
    ### Intruders who stay: runs, and a reference they cannot hide in

    Above, each intruder block is spliced in alone. A real intruder often stays: here each other user's first
    1-N blocks after command 1,500 go into the target's later stream as one run, at a seeded random place
    (`filegram_kit.behaviour.intruder_runs`). Two ways to score a block:

    - **others**: against every other block of the target's stream, the intruder's run included (what
      `drift(..., detector="habit")` does on a finished history): the run's blocks vouch for each other;
    - **past**: against the accepted *earlier* blocks only, after the training blocks as a warm-up, and a
      block the model flags is not learnt from (`drift(..., detector="habit", reference="past")`,
      `past_drift.past_scores`): the intruder's first block is flagged, so the rest of his run is too.

    `absorbed` is the share of intruder blocks the past model learnt from; `shuffled_auc` permutes each
    target's intruder labels and should sit near 0.5. The full table is `pu_intruder_runs` in `figures/`.
    """)
    return


@app.cell
def _():
    longest_run = mo.ui.slider(1, 10, value=10, step=1, label="longest intruder run (blocks)")
    longest_run
    return (longest_run,)


@app.cell
def _(longest_run, pu_blocks):
    from filegram_kit.behaviour.intruder_runs import intruder_streams, runs_table
    from filegram_kit.report.intruder_views import stream_figure

    runs_result = runs_table(pu_blocks, train=1500, seed=0, run_lengths=(1, longest_run.value))
    _first = intruder_streams(pu_blocks, train=1500, seed=0, run_lengths=(1, longest_run.value))[0]
    mo.vstack([mo.ui.table(runs_result.drop("users", "runs"), selection=None),
               stream_figure(pu_blocks, _first, train=1500)])
    return (runs_result,)


@app.cell
def _(runs_result):
    def test_the_past_reference_catches_runs_the_others_reference_lets_hide():
        by = {(r["detector"], r["reference"]): r for r in runs_result.iter_rows(named=True)}
        past, others = by[("habit Markov", "past")], by[("habit Markov", "others")]
        assert past["masquerade_auc"] > others["masquerade_auc"] and past["hit_at_5pct"] > others["hit_at_5pct"]
        assert all(abs(r["shuffled_auc"] - 0.5) < 0.2 for r in by.values())  # the control finds no leak
    return


@app.cell
def _():
    mo.md(r"""
    ### Alarms at a false-alarm rate you choose

    `tau` says how many standard deviations; a user of drift alarms would rather say how many false alarms they
    can live with, e.g. 1 in 100 sessions: `drift(..., detector="habit", reference="past", false_alarm=0.01)`
    (`filegram drift --false-alarm 0.01`). Each user's threshold is then a conformal quantile of their own past
    deviations. A past too short for the rate (fewer than 1 / rate - 1 sessions) borrows the other users'
    warm-ups, standardised; with too little even then, nothing is flagged rather than guessed.

    The score (`score=`): *one-class* reads a session against the user's own past only; *two-class* (the
    default with a rate and several users) against the other users' warm-ups as well: a session is deviant
    when it is more like someone else than like the user. Below, the users chosen above, their intruder-run
    streams, each habit model (`model=`: markov, multinomial, naive_bayes) and score at three rates: how often
    each user's own blocks were flagged (realised) against the rate asked; the grey band is 0.5x to 2x.
    `hits_unknown`: the intruder's blocks scored with him left out of the background (a stranger, not another
    known user). `worst_user_realised`: without feedback the band holds for the rate pooled over users, not
    for each user; a user whose habits change is flagged again and again, since flagged sessions are not
    learnt from. Rows with `feedback` true (the lower panels) review every alarm and confirm the user's own
    (`drift(..., confirmed=ids)`): confirmed sessions are learnt. The 8-user table, and the same on the
    simulated personas, is `drift_false_alarms` in `figures/`.
    """)
    return


@app.cell
def _(pu_blocks):
    from filegram_kit.behaviour.alarm_calibration import pu_calibration
    from filegram_kit.report.alarm_views import calibration_figure

    alarms = pu_calibration(pu_blocks, train=1500, seed=0)
    mo.vstack([calibration_figure(alarms),
               mo.ui.table(alarms.drop("data").with_columns(pl.col(pl.Float64).round(4)), selection=None)])
    return (alarms,)


@app.cell
def _(alarms):
    def test_alarms_refuse_a_rate_the_past_cannot_support_and_beat_chance_where_it_can():
        for row in alarms.iter_rows(named=True):
            if row["unsupported"] == 1:  # no threshold could promise the rate: nothing flagged, nothing guessed
                assert row["realised"] == 0 and row["hits"] == 0
            if row["asked"] == 0.05:  # a supported rate: intruders are flagged more often than the user
                assert row["hits"] > row["realised"]
            if row["score"] == "one_class" and not row["feedback"]:  # no background, nobody to leave out
                assert row["hits_unknown"] == row["hits"]
    return


if __name__ == "__main__":
    app.run()
