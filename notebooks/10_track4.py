import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import io
    import tempfile
    from pathlib import Path

    import marimo as mo
    import polars as pl

    from filegram_kit.bench.file_grounding import build_file_grounding
    from filegram_kit.bench.harness import evaluate
    from filegram_kit.bench.inputs import TrajectoryStore
    from filegram_kit.bench.score import format_table3
    from filegram_kit.bench.visual_grounding import controls as visual_controls
    from filegram_kit.bench.visual_grounding import visual_grounding_items
    from filegram_kit.multimodal import build_multimodal, default_dir, examples, loss_summary, open_rendered
    from filegram_kit.multimodal.screen_replay import caption_video, gui_steps, record_replay
    from filegram_kit.notebook_args import autorun_mode, smoke_mode
    from filegram_kit.report import bench_views as bv
    from filegram_kit.report.bench_tables import SETTING_ROWS, paired_table
    from filegram_kit.notebook_corpus import corpus_or_small

    # smoke mode: the 4 personas x 6 tasks of notebook 05 (Chinese and English writers, every output kind)
    SMOKE_PERSONAS = ["p1_methodical", "p3_efficient_executor", "p7_visual_reader", "p12_prolific_scanner"]
    SMOKE_TASKS = ["T-01", "T-02", "T-03", "T-05", "T-09", "T-16"]
    SCRATCH = tempfile.TemporaryDirectory(prefix="filegram-nb10-")  # removed when the kernel exits
    WORK = Path(SCRATCH.name)


@app.cell
def _():
    mo.md(r"""
    # 10 · Track 4: the multimodal setting, File Grounding and Visual Grounding

    FileGramBench's fourth track (paper §4, §6.1) asks the Track 1-3 questions again where the evidence is not
    in the event log's text: the agent's outputs rendered as files (**File Grounding**, answered from the
    multimodal setting through one shared parser) and a session replayed as a screen recording (**Visual
    Grounding**: what does the user do next?). Notebook 05 covers tracks 1-3 and the reader; this one builds
    the settings, shows what the parse loses, and answers File Grounding in both settings, paired.
    """)
    return


@app.cell
def _():
    smoke = smoke_mode()  # `python notebooks/10_track4.py -- --smoke` (or FILEGRAM_SMOKE=1): 4 personas x 6 tasks
    autorun = autorun_mode()  # no button to press when run as a script or in Jupyter
    backend_choice = mo.ui.dropdown(options=bv.available_backends(), value="offline",
                                    label="Backend (reader and memories)")
    mo.vstack([mo.md(f"Backends available here: {', '.join(bv.available_backends())}."), backend_choice])
    return autorun, backend_choice, smoke


@app.cell
def _():
    _options, _default = bv.method_choices()
    method_pick = mo.ui.multiselect(options=_options, value=_default, label="Methods")
    mo.vstack([mo.md("The methods that answer File Grounding below (Table 3's 13 by default; fewer answer faster)."),
               method_pick])
    return (method_pick,)


@app.cell
def _(method_pick):
    methods = list(method_pick.value) or ["no_context"]
    return (methods,)


@app.cell
def _(smoke):
    corpus = corpus_or_small(smoke, WORK, SMOKE_PERSONAS, SMOKE_TASKS)
    store = TrajectoryStore(corpus)  # loads and cleans each trajectory once, on first use
    mo.md(f"The text setting: `{corpus}` (" + ("a small corpus in a temporary folder)" if smoke else
                                               "the full corpus, built once)"))
    return corpus, store


@app.cell
def _():
    render_now = mo.ui.run_button(label="Render the outputs")
    mo.vstack([mo.md(r"""
    ## Track 4's multimodal setting: the same traces, the outputs rendered

    The paper's Multimodal setting keeps every event log and renders the agent's text outputs as
    files: each output is cut into sections, and each section becomes a PDF, DOCX, PPTX, XLSX, a page
    image, a chart or a spoken narration (`filegram corpus --setting multimodal`). A text method then
    reads the outputs only through **one shared parser** (pypdf, python-docx, python-pptx, openpyxl,
    tesseract OCR for images, container metadata for audio), so the table below is what it loses:
    the share of each section's words the parse gives back, tables whose grid was flattened, images
    without text and narrations nobody transcribed, with English words and Chinese characters counted
    apart (`recovered_en`, `recovered_zh`). Chinese is drawn with a CJK font and OCR reads English and
    Chinese (`filegram_kit/util/cjk.py`), so the two should be lost at about the same rate.
    """), render_now])
    return (render_now,)


@app.cell
def _(autorun, corpus, render_now, smoke):
    mo.stop(not (render_now.value or autorun), mo.md("Press **Render the outputs** to build the setting."))
    with mo.status.spinner(title="Rendering every text output (about 7 minutes for the full corpus on 2 cores) ..."):
        mm_corpus = WORK / "corpus_multimodal" if smoke else default_dir(corpus)
        rendered = build_multimodal(corpus, mm_corpus, seed=0, progress=False)
    _loss = loss_summary(rendered.report).with_columns(pl.col("^recovered.*$").mul(100).round(1))
    mo.vstack([mo.md(f"**{_loss['files'].sum():,} files** from {rendered.report['blob'].n_unique():,} output "
                     f"snapshots of {rendered.trajectories} trajectories, in `{mm_corpus}`; the event logs are "
                     "byte for byte the text setting's."), mo.ui.table(_loss, selection=None)])
    return mm_corpus, rendered


@app.cell
def _(rendered):
    shown_files = examples(rendered.report, per_format=3)
    _files = {f"{r['format']} · {r['trajectory_id']} · {r['title'][:40]}": i
              for i, r in enumerate(shown_files.iter_rows(named=True))}
    file_pick = mo.ui.dropdown(_files, value=next(iter(_files), None), label="A rendered file")
    file_pick
    return file_pick, shown_files


@app.cell
def _(file_pick, mm_corpus, shown_files):
    _shown = open_rendered(mm_corpus, shown_files.row(file_pick.value or 0, named=True))
    _ext = _shown.format.rsplit(".", 1)[-1]
    _preview = (mo.image(_shown.data) if _ext == "png" else mo.audio(_shown.data) if _ext == "mp3"
                else mo.pdf(io.BytesIO(_shown.data), height="40vh") if _ext == "pdf"
                else mo.md(f"*{_ext.upper()} file, {len(_shown.data):,} bytes (open it from `{_shown.path}`)*"))
    mo.vstack([mo.md(f"**{_shown.format}**, {100 * _shown.loss.recovered:.0f}% of the section's words recovered"),
               _preview, mo.hstack([mo.md(f"**The section (text setting)**\n```\n{_shown.source}\n```"),
                                    mo.md(f"**What the parser reads**\n```\n{_shown.parsed}\n```")],
                                   widths="equal")])
    return


@app.cell
def _(corpus):
    t4_items, t4_report = build_file_grounding(corpus, seed=0)
    _by = pl.DataFrame({"source": [i.metadata["source_sub_track"] for i in t4_items]}).group_by("source").len()
    mo.vstack([mo.md(f"""
    ### File Grounding: {len(t4_items)} items (the paper: 550 over 640 trajectories)

    The same Track 1-3 questions, kept only where the evidence is in the outputs (production and
    cross-modal questions, the attributes under them, the language and role of the writing, and
    whole-profile questions), then answered from the multimodal setting above instead of the text
    one. {t4_report.drafted:,} drafts, {t4_report.redrawn:,} dropped (evidence not in the outputs or not
    supporting the key).
    """), mo.ui.table(_by.sort("len", descending=True), selection=None)])
    return (t4_items,)


@app.cell
def _(smoke):
    limit = mo.ui.slider(steps=[1, 2, 5, 10, 20, 50, 100, 200, 550], value=2 if smoke else 10, show_value=True,
                         label="File Grounding items per source sub-task")
    run_t4 = mo.ui.run_button(label="Answer File Grounding in both settings")
    mo.vstack([mo.md("The paper's Text vs Multimodal comparison: the same File Grounding items answered from the "
                     "text corpus and from its multimodal setting, by the methods and the items-per-sub-task "
                     "limit set here; the change is paired on the items, personas resampled "
                     "(`make reproduce` writes the full run to `figures/table03_settings.md`)."),
               mo.hstack([limit, run_t4], justify="start")])
    return limit, run_t4


@app.cell
def _(autorun, backend_choice, corpus, limit, methods, mm_corpus, run_t4, smoke, t4_items):
    mo.stop(not (run_t4.value or autorun), mo.md("Press **Answer File Grounding in both settings**."))
    _root = WORK / "results" if smoke else Path(corpus).resolve().parent / "results" / "notebook"
    _run = dict(backend=backend_choice.value, limit=limit.value, workers=1 if smoke else 2,
                executor="auto", progress=not smoke)
    with mo.status.spinner(title=f"File Grounding: {len(methods)} methods, text and multimodal setting ..."):
        _text = evaluate(t4_items, corpus, methods, out=bv.results_folder(_root / "fg_text", t4_items), **_run)
        _mm = evaluate(t4_items, mm_corpus, methods, out=bv.results_folder(_root / "fg_multimodal", t4_items),
                       **_run)
    _table = paired_table(_text, _mm, SETTING_ROWS, "setting", ["FileGrd", "Proc", "Sem", "Epi"])
    mo.vstack([mo.md(f"**{_mm.height:,} rows per setting.** FileGrd: accuracy (%) [95% CI]; `multimodal - text`: "
                     "the paired change. Offline no method reads images natively, so a change is what the parse "
                     "lost."), mo.md(format_table3(_table))])
    return


@app.cell
def _(corpus):
    visual_items = visual_grounding_items(corpus, seed=0)
    replay_pick = mo.ui.dropdown({i.input_trajectories[0]: n for n, i in enumerate(visual_items)},
                                 value=visual_items[0].input_trajectories[0], label="Session")
    mo.vstack([mo.md(f"""
    ## Track 4's Visual Grounding: a session as a screen recording

    Each of the {len(visual_items)} items shows the **first half** of a session replayed as a file
    manager (tree, preview, the cursor on the file, the action in the status bar) and asks what the
    user does next. A memory gets the recording read back by OCR, never the event log; a rubric judge
    scores the answer against the second half (operations, targets, naming). Its controls on these
    items, mean score: {visual_controls(visual_items)}.
    """), replay_pick])
    return replay_pick, visual_items


@app.cell
def _(replay_pick, store, visual_items):
    _item = visual_items[replay_pick.value]
    _steps = gui_steps(store.get(_item.input_trajectories[0]))[:_item.metadata["half"]]
    _video, _alignment = record_replay(_steps)
    _read = caption_video(_video)
    _frames = pl.DataFrame(_alignment).with_columns(
        pl.Series("captioned (OCR)", [" ".join(c) if c else "(unreadable)" for c in _read]))
    mo.vstack([mo.hstack([mo.video(_video, width=560), mo.ui.table(_frames.drop("target"), selection=None,
                                                                    page_size=10)], widths=[3, 2]),
               mo.md(f"**Question.** {_item.question}\n\n**Reference (the second half).** {_item.correct}")])
    return


if __name__ == "__main__":
    app.run()
