import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import tempfile
    from pathlib import Path

    import marimo as mo
    import polars as pl

    from filegram_kit.bench.audit import audit_items
    from filegram_kit.bench.controls import evaluate_controls
    from filegram_kit.bench.ground_truth import corpus_facts
    from filegram_kit.bench.generate import build_items
    from filegram_kit.bench.harness import evaluate, load_results, select
    from filegram_kit.bench.inputs import TrajectoryStore
    from filegram_kit.bench.items import paper_comparison, summary
    from filegram_kit.bench.schema import TRACKS
    from filegram_kit.bench.analysis import format_readout, pack_differences, reader_limits, readout, split_controls
    from filegram_kit.bench.bootstrap import ci_table
    from filegram_kit.bench.score import PAPER_TABLE3, costs, format_table3, side_by_side, table3
    from filegram_kit.engine import build_corpus
    from filegram_kit.notebook_corpus import corpus_or_small
    from filegram_kit.report.corpus_source import style_pack_corpus
    from filegram_kit.llm import get_backend
    from filegram_kit.notebook_args import autorun_mode, cli_args, smoke_mode
    from filegram_kit.notebook_results import KeptResults, Recent, stale_note
    from filegram_kit.report import bench_views as bv
    from filegram_kit.report.bench_figures import qa_distribution_figure
    from filegram_kit.widgets import ItemBrowser

    # smoke mode: 4 contrasting personas x 6 tasks. T-16 is the only perturbation candidate among them, so every
    # persona gets one shifted session and all seven sub-tasks have items (built in about 2 s)
    SMOKE_PERSONAS = ["p1_methodical", "p3_efficient_executor", "p7_visual_reader", "p12_prolific_scanner"]
    SMOKE_TASKS = ["T-01", "T-02", "T-03", "T-05", "T-09", "T-16"]
    METHODS = list(bv.METHODS)  # paper Table 3's 13 methods (the method picker below starts with all of them)
    SCRATCH = tempfile.TemporaryDirectory(prefix="filegram-nb05-")  # removed when the kernel exits
    WORK = Path(SCRATCH.name)


@app.cell
def _():
    mo.md(r"""
    # 05 · FileGramBench

    FileGramBench (paper §4, Table 3) asks what a memory knows about one user from their file-system
    traces. Items are built from templates over the corpus' ground truth, in four tracks: **T1
    understanding** (attribute recognition, behavioural fingerprint, free-form profile reconstruction),
    **T2 reasoning** (behavioural inference, trace disentanglement of two interleaved sessions), **T3
    detection** (which session is anomalous, and what shifted) and T4 multimodal grounding (its items and
    settings are in notebook `10_track4`: the outputs rendered as files, and sessions replayed as screen
    recordings). Each item also names the memory *channel* it tests: procedural, semantic or episodic.

    Every method builds its memory from the item's input trajectories (anonymised: sessions named by task
    only), retrieves a context with the question, and **one shared reader** answers from that context
    alone, so the memory is the only thing that differs. With no key the reader is the offline backend's
    **lexical reader**: it scores each option against the context by word overlap and picks the best, a
    real but literal method, not an LLM. With `GEMINI_API_KEY` (or an OpenAI-compatible server) pick that
    backend below and the same cells run with a model as reader, and as the memories' own LLM.
    """)
    return


@app.cell
def _():
    smoke = smoke_mode()  # `python notebooks/05_benchmark.py -- --smoke` (or FILEGRAM_SMOKE=1): small corpus, few items
    autorun = autorun_mode()  # no button to press when run as a script or in Jupyter
    _names = bv.available_backends()
    _asked = cli_args().get("backend") or "offline"  # `-- --backend gemini` picks it when its key is set
    backend_choice = mo.ui.dropdown(options=_names, value=_asked if _asked in _names else "offline",
                                    label="Backend (reader and memories)")
    _missing = "" if _asked in _names else f" (`{_asked}` was asked for, but its key is not set)"
    mo.vstack([mo.md(f"Backends available here: {', '.join(_names)}{_missing}."), backend_choice])
    return autorun, backend_choice, smoke


@app.cell
def _(backend_choice):
    backend = get_backend(backend_choice.value)
    return (backend,)


@app.cell
def _():
    _options, _default = bv.method_choices()
    method_pick = mo.ui.multiselect(options=_options, value=_default, label="Methods")
    mo.vstack([mo.md("Every registered memory can be picked (Table 3's 13 by default; a method registered with "
                     "`register_memory` appears here too). Fewer methods answer faster."), method_pick])
    return (method_pick,)


@app.cell
def _(method_pick):
    methods = list(method_pick.value) or ["no_context"]
    return (methods,)


@app.cell
def _(smoke):
    load = mo.ui.run_button(label="Build the items")
    item_seed = mo.ui.number(start=0, stop=999, step=1, value=0, label="Item seed")
    _what = (f"a small corpus ({len(SMOKE_PERSONAS)} personas x {len(SMOKE_TASKS)} tasks) in a temporary folder"
             if smoke else "the full corpus in `data/corpus` (20 personas x 32 tasks; built once, about a minute)")
    mo.vstack([mo.md(f"## Items\nThis builds {_what}, then its bench items for the item seed (a seed built "
                     "before in this session comes back at once)."), mo.hstack([item_seed, load], justify="start")])
    return item_seed, load


@app.cell
def _():
    # the items by seed: a seed seen before is shown again at once; a new one waits for the button
    built_items = KeptResults("Build the items")
    # what the cells below computed from items shown before: every reader of the items re-runs when a kept seed is
    # shown again, and gets its audit or one-item comparison back at once
    seen = Recent()
    return built_items, seen


@app.cell
def _(autorun, built_items, item_seed, load, smoke):
    def _build():
        with mo.status.spinner(title=f"Building or loading the corpus, then the items of seed {item_seed.value} ..."):
            _corpus = corpus_or_small(smoke, WORK, SMOKE_PERSONAS, SMOKE_TASKS)
            return _corpus, build_items(_corpus, seed=int(item_seed.value))

    _kept = built_items.get({"Item seed": int(item_seed.value)}, pressed=load.value, autorun=autorun, compute=_build)
    mo.stop(_kept.value is None, mo.md("Press **Build the items** to start."))
    corpus, items = _kept.value
    store = TrajectoryStore(corpus)  # loads and cleans each trajectory once, on first use
    mo.vstack([stale_note(_kept),
               mo.md(f"**{len(items):,} items** in {len({i.sub_track for i in items})} sub-tasks, about "
                     f"{len({i.profile_id for i in items})} personas.")])
    return corpus, items, store


@app.cell
def _(items):
    _cmp = paper_comparison(items)
    mo.vstack([
        mo.md("### How many items, against the paper\nThe paper's counts (Table 3's footnote) are for its 640 "
              "trajectories; ours are scaled to this corpus' size, and a sub-task keeps everything its "
              "templates can write when that is fewer."),
        qa_distribution_figure(_cmp.select("track", "sub_track", "abbr", "paper_count", "ours", "note")),
        mo.ui.table(_cmp, selection=None),
    ])
    return


@app.cell
def _(items):
    mo.vstack([mo.md("### Is the answer position balanced?\nPer sub-task and channel: items, options per item "
                     "(0 = free-form), and the share of items whose correct option is A, B, C, ... A reader that "
                     "always picks one letter should score no better than chance."),
               mo.ui.table(summary(items), selection=None, page_size=20)])
    return


@app.cell
def _(corpus, items, seen):
    def _audit():
        with mo.status.spinner(title="Auditing the items (a choices-only model is trained per sub-task) ..."):
            return audit_items(items, corpus_facts(corpus))

    audit = seen.get(("audit", str(corpus), tuple(i.question_id for i in items)), _audit)
    _verdict = ("**Every sub-task passes.**" if audit.passed else
                "**Failing:** " + "; ".join(f"{k}: {v}" for k, v in audit.reasons().items()))
    mo.vstack([mo.md(r"""
    ### Could the items be answered without the traces?
    A benchmark number means something only if the evidence is needed to reach it. Per sub-task (and
    sub-class), `bench.audit` asks:

    - **choices_only**: a logistic regression that sees only the options (words, overlap between options,
      letter), trained on *other personas'* items and tested on held-out ones. The old items leaked
      (shift direction 100%, perturbation 83%, portraits 63% from the options alone).
    - **key_position**: the best "always pick option k"; **task_prior**: "pick the session whose task was
      most often the key for other personas" (where options are sessions, a reader sees their tasks).
    - **observer**: how often the ideal observer of the traces (what each session really showed) picks
      the key. Items it cannot answer clearly are redrawn when the items are built.

    A sub-task fails when a check beats chance by more than max(5 points, 2.5 standard errors), or the
    observer agrees with fewer than 97% of keys; `filegram bench build` then exits non-zero. A choices-only
    score *below* chance is the signature of a balanced design under leave-persona-out training, not a
    leak. Sub-class rows are shown to find a leak but do not gate (they are small).
    """), mo.md(_verdict), mo.ui.table(audit.table, selection=None, page_size=20)])
    return


@app.cell
def _(items):
    track = mo.ui.dropdown(options=[t for t in TRACKS if any(i.track == t for i in items)],
                           value=items[0].track, label="Track")
    mo.vstack([mo.md("## Browse the items"), track])
    return (track,)


@app.cell
def _(items, track):
    _subs = list(dict.fromkeys(i.sub_track for i in items if i.track == track.value))
    sub_track = mo.ui.dropdown(options=_subs, value=_subs[0], label="Sub-task")
    mo.hstack([sub_track], justify="start")
    return (sub_track,)


@app.cell
def _(items, sub_track):
    shown_items = [i for i in items if i.sub_track == sub_track.value]
    pick = mo.ui.slider(start=0, stop=max(len(shown_items) - 1, 1), value=0, show_value=True,
                        label=f"Item (of {len(shown_items)})", full_width=True)
    mo.hstack([pick], justify="start")
    return pick, shown_items


@app.cell
def _(pick, shown_items):
    item = shown_items[min(pick.value, len(shown_items) - 1)]
    mo.md(bv.item_markdown(item))
    return (item,)


@app.cell
def _(backend_choice, methods):
    answer_now = mo.ui.run_button(label=f"Answer with the {len(methods)} methods")
    _how = ("Offline, this runs as soon as an item is picked." if backend_choice.value == "offline"
            else "With an API backend every ingest and answer is a paid call (cached), so it waits for the button.")
    mo.vstack([mo.md(f"## One item, {len(methods)} memories\nEach method ingests the item's inputs, retrieves a context "
                     f"with the question, and the shared reader answers. {_how}"), answer_now])
    return (answer_now,)


@app.cell
def _(answer_now, autorun, backend, backend_choice, item, methods, seen, store):
    mo.stop(not (answer_now.value or autorun or backend_choice.value == "offline"),
            mo.md("Press **Answer with the methods**."))

    def _compare():
        with mo.status.spinner(title=f"Ingesting and answering {item.question_id} with {len(methods)} methods ..."):
            return bv.compare_methods(item, store, methods, backend=backend)

    comparison = seen.get(("compare", str(store.corpus), item.question_id, tuple(methods), backend_choice.value),
                          _compare)
    mo.vstack([mo.md(f"Correct answer: **{item.correct if item.is_mcq else 'free-form, scored 0-100 by the judge'}**. "
                     "`memory_tokens`: everything the memory stores; `context_tokens`: what the reader got for "
                     "this question (estimated tokens)."),
               mo.ui.table(comparison.frame, selection=None)])
    return (comparison,)


@app.cell
def _(comparison):
    _long = [m for m, c in comparison.contexts.items() if len(c.text) > bv.DISPLAY_CHARS]
    _note = (f"Contexts longer than {bv.DISPLAY_CHARS:,} characters are cut here ({', '.join(_long)}); the reader "
             "got them whole." if _long else "Every context is shown whole.")
    mo.vstack([mo.md(f"The context each method handed the reader. {_note}"),
               mo.ui.tabs({bv.METHOD_LABELS.get(m, m): mo.plain_text(bv.shown(c.text) or "(empty context)")
                           for m, c in comparison.contexts.items()})])
    return


@app.cell
def _(smoke):
    limit = mo.ui.slider(steps=[1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], value=2 if smoke else 10,
                         show_value=True, label="Items per sub-task")
    run = mo.ui.run_button(label="Run the benchmark")
    mo.vstack([mo.md("## Results: paper Table 3\nEvery method answers the first N items of each sub-task through "
                     "`bench.harness.evaluate`. Rows stream to `results.jsonl` beside a `manifest.json`; a rerun "
                     "with the same items resumes and only answers what is missing."),
               mo.hstack([limit, run], justify="start")])
    return limit, run


@app.cell
def _(autorun, backend_choice, corpus, items, limit, methods, run, smoke):
    mo.stop(not (run.value or autorun), mo.md("Press **Run the benchmark**."))
    _root = WORK / "results" if smoke else Path(corpus).resolve().parent / "results" / "notebook"
    results_dir = bv.results_folder(_root, items)
    with mo.status.spinner(title=f"Answering up to {limit.value} items per sub-task with {len(methods)} methods ..."):
        results = evaluate(items, corpus, methods, backend=backend_choice.value, out=results_dir, limit=limit.value,
                           workers=1 if smoke else 2, executor="auto",
                           progress=not smoke)
    answered = select(items, limit.value)
    with mo.status.spinner(title="Control rows (chance, choices-only, the two observers, oracle, the two oracle "
                                 "contexts) ..."):
        evaluate_controls(answered, corpus, out=results_dir, backend=backend_choice.value)
    all_rows = load_results(results_dir).filter(pl.col("question_id").is_in([i.question_id for i in answered]))
    ours = table3(results)
    mo.md(f"**{results.height:,} rows** ({len(answered)} items x {len(methods)} methods), "
          f"{int(results['error'].is_not_null().sum())} with an error, in `{results_dir}`.")
    return all_rows, answered, ours, results


@app.cell
def _(answered, results):
    # the answered items as a widget (also in JupyterLab): filter, step through, reveal the key, see each method's answer
    item_browser = mo.ui.anywidget(ItemBrowser(answered, results=results))
    item_browser
    return (item_browser,)


@app.cell
def _(all_rows):
    mo.vstack([mo.md(r"""
    ### With confidence intervals, paired differences and controls
    Items about one persona share its traces, so the CIs resample **personas**, not items. Differences
    from FileGramOS are computed on the same items (paired). The controls are reference points, never
    ranked: a method near **chance** or **choices_only** learnt nothing from memory; **observer_traces** is
    what a perfect memory could reach from the traces alone; **oracle_context** is the shared reader handed
    the ground truth in the options' words, **oracle_paraphrased** the same truth in other words and
    **oracle_paraphrased_b** in a third wording the reader was never tuned on.
    """), mo.md(format_readout(readout(all_rows, n_boot=500)))])
    return


@app.cell
def _(all_rows):
    _limits = reader_limits(table3(split_controls(all_rows)[1]))
    _limited = _limits.filter(pl.col("reader_limited"))["column"].to_list()
    mo.vstack([mo.md(f"""
    ### Which columns can rank memories
    A column is **reader-limited** when the shared reader, handed the truth in other words
    (`oracle_paraphrased`, or the untuned `oracle_paraphrased_b`), stays below chance + 25 points: whatever a
    memory holds, this reader cannot read it there, so no ordering of methods on that column means anything.
    `wording_bound` flags a column whose two wordings are read more than 10 points apart. Here:
    **{", ".join(_limited) or "none"}**. `observer_traces` says how much the traces carry at all.
    """), mo.ui.table(_limits, selection=None)])
    return


@app.cell
def _(results):
    mo.vstack([mo.md(r"""
    ### What each memory cost to build, apart from answering
    Per persona (the Profile Reconstruction input sets: all of a persona's sessions), as a fresh build: backend
    calls at ingest, the estimated tokens of those calls' prompts and replies (what an LLM backend would be
    sent; offline bills nothing), the seconds; then the context per query and the seconds to answer.
    """), mo.ui.table(costs(results), selection=None)])
    return


@app.cell
def _(smoke):
    pack_run = mo.ui.run_button(label="Run on style pack B")
    mo.vstack([mo.md(r"""
    ### Does a method read behaviour, or our generator's wording?
    Style pack B (`filegram corpus --style-pack B`) re-words everything the offline agent writes and names
    (headings, link words, separators, file and folder names) and keeps the behaviour: the same events in
    the same order, so the same items. The same methods answer the same items on that twin corpus; a
    method tuned to pack A's phrasing loses on B. No method here was developed against pack B.
    """), pack_run])
    return (pack_run,)


@app.cell
def _(all_rows, answered, autorun, backend_choice, corpus, methods, pack_run, smoke):
    mo.stop(not (pack_run.value or autorun), mo.md("Press **Run on style pack B**."))
    with mo.status.spinner(title="Building the pack-B twin corpus and answering the same items ..."):
        twin = style_pack_corpus(corpus, "B")
        _root = WORK / "results_b" if smoke else Path(corpus).resolve().parent / "results" / "notebook_b"
        _out = bv.results_folder(_root, answered)
        pack_b = evaluate(answered, twin, methods, backend=backend_choice.value, out=_out, workers=1 if smoke else 2,
                          executor="auto", progress=not smoke)
    mo.vstack([mo.md(f"Each method's score on pack B minus its score on pack A, on the same {len(answered)} items "
                     "[95% CI, personas resampled]:"),
               mo.md(format_table3(ci_table(pack_differences(all_rows, pack_b, n_boot=500))))])
    return


@app.cell
def _(backend_choice, methods, ours):
    _paper = PAPER_TABLE3.filter(pl.col("method").is_in(methods))
    _table = side_by_side(ours, _paper, ours_label=f"ours ({backend_choice.value})")
    mo.vstack([mo.md("Sub-task columns: accuracy (%); ProfRec: the judge's Likert score rescaled to 0-100. Proc / "
                     "Sem / Epi: multiple-choice items of that channel. Our Avg: the mean of the sub-task columns "
                     "answered here (tracks 1-3; Track 4 is answered from its own settings in notebook 10, and "
                     "`make reproduce` puts all nine columns in Table 3). Tok In: stored memory per persona; "
                     "Tok Out: context per query. With the offline reader, compare the methods with each other, not with the paper."),
               mo.md(format_table3(_table)),
               mo.accordion({"All 13 of the paper's rows": mo.md(format_table3(side_by_side(ours.head(0))))})])
    return


@app.cell
def _(backend_choice, methods, ours):
    _paper = PAPER_TABLE3.filter(pl.col("method").is_in(methods))
    mo.vstack([mo.md("### By memory channel"),
               mo.hstack([bv.channel_bars(ours, title=f"Ours ({backend_choice.value})").figure,
                          bv.channel_bars(_paper, title="Paper (Gemini 2.5 Flash)").figure], justify="start")])
    return


@app.cell
def _(answered, ours):
    _bars = bv.subtask_bars(ours, answered)
    mo.vstack([mo.md("### By sub-task\nChance per sub-task = the mean of 1 / options over the items answered "
                     "(T3 items have 4-6 options, so their chance is low)."),
               _bars.figure, mo.accordion({"Numbers": mo.ui.table(_bars.data, selection=None)})])
    return


@app.cell
def _(smoke):
    knows_n = mo.ui.slider(start=3, stop=100, value=3 if smoke else 20, show_value=True, label="Items")
    knows_run = mo.ui.run_button(label="Compare")
    mo.vstack([mo.md(r"""
    ## Does the reader read what the memory knows?
    Anomaly Detection asks which of 4-6 sessions was not done by this user (an impostor), or in which one
    they behaved unlike themselves (a perturbation). FileGramOS scores every session's deviation from the
    user's own centroid (paper Eq. 1) while ingesting, so it *knows* a ranking of how unusual each session
    is. Here, for a handful of items spread over the sub-task: the rank of the correct session in the
    memory's own drift ranking (1 = most unusual), against the option the reader *picks* from its context.
    """), mo.hstack([knows_n, knows_run], justify="start")])
    return knows_n, knows_run


@app.cell
def _(autorun, backend, items, knows_n, knows_run, store):
    mo.stop(not (knows_run.value or autorun), mo.md("Press **Compare**."))
    with mo.status.spinner(title=f"Ingesting {knows_n.value} Anomaly Detection items with FileGramOS ..."):
        knows = bv.knows_vs_acts(items, store, backend, n=knows_n.value)
    mo.ui.table(knows, selection=None)
    return (knows,)


@app.cell
def _(backend_choice, knows):
    _s = bv.knows_vs_acts_summary(knows)
    mo.md(f"""
    Over **{_s['items']} items**, the memory ranks the correct session as the most unusual in **{_s['knows']}**,
    and the {backend_choice.value} reader picks it in **{_s['acts']}**; in **{_s['knows_not_acts']}** the
    memory knew and the reader still missed it.

    The ranking is in the context: FileGramOS' episodic block lists the "sessions least like this user's
    usual behaviour (most deviating first)" under the labels the options use ("Session 5 (T-11)"). When the
    options only name sessions, the offline reader compares what the context says about each one
    (`llm/algorithms/compare.py`: deviation words, numbers after them, and how unlike the others a session's
    lines are), in any memory's prose. Where the memory knew and the reader still missed, the memory's
    ranking and the reader's cues disagree; an LLM reader (`gemini`, `openai_compat` at the top) reads the
    same contexts (the paper's FileGramOS reaches 70.2% on AnomDet with Gemini 2.5 Flash).
    """)
    return


@app.function
def test_every_method_answers_one_item_from_its_own_context():
    with tempfile.TemporaryDirectory() as tmp:
        build_corpus(tmp, profiles=SMOKE_PERSONAS[:2], tasks=SMOKE_TASKS, workers=1, progress=False)
        items = build_items(tmp, seed=0, sub_tracks=["attribute_recognition"])
        out = bv.compare_methods(items[0], TrajectoryStore(tmp), METHODS, backend=get_backend("offline"))
        assert out.frame["method"].to_list() == METHODS and out.frame["error"].null_count() == len(METHODS)
        assert out.contexts["no_context"].tokens == 0 < out.contexts["filegramos"].tokens
        assert out.contexts["filegramos"].tokens < out.frame.filter(pl.col("method") == "full_context")[
            "memory_tokens"][0]


if __name__ == "__main__":
    app.run()
