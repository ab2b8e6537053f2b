import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import tempfile
    from pathlib import Path

    import marimo as mo
    import polars as pl

    from filegram_kit import knowact
    from filegram_kit.bench.ground_truth import corpus_facts
    from filegram_kit.knowact.case import persona_split
    from filegram_kit.report.knowact_views import (
        instrument_table,
        pick_worked_case,
        rate_cells,
        summary_table,
        worked_case,
    )
    from filegram_kit.knowact.run import VERSION
    from filegram_kit.memory.base import MEMORIES
    from filegram_kit.notebook_args import autorun_mode, project_dir, smoke_mode
    from filegram_kit.notebook_corpus import corpus_or_small
    from filegram_kit.report.knowact_figures import attribution_stack, knowact_bars
    from filegram_kit.util.natural_order import natural_sorted

    # smoke mode: 3 personas (each one's Act reader is fit on the other two) x 14 tasks. T-18 fully activates
    # all six dimensions; C and D (the scarce ones) are fully activated by several more (C: T-05 T-14 T-21 T-27
    # T-29, D: T-09 T-10 T-21 T-29 T-30), so every split finds its act tasks and keeps >= 8 sessions to ingest
    SMOKE_PERSONAS = ["p1_methodical", "p16_phased_minimalist", "p3_efficient_executor"]
    SMOKE_TASKS = ["T-01", "T-03", "T-04", "T-05", "T-09", "T-10", "T-14", "T-18", "T-20", "T-21", "T-22",
                   "T-27", "T-29", "T-30"]
    SMOKE_METHODS = ["no_context", "filegramos"]
    METHODS = list(dict.fromkeys([*knowact.DEFAULT_METHODS, *MEMORIES]))  # the default eight first
    FIGURES = project_dir() / "figures"
    SCRATCH = tempfile.TemporaryDirectory(prefix="filegram-nb08-")  # removed when the kernel exits
    WORK = Path(SCRATCH.name)


@app.cell
def _():
    mo.md(r"""
    # 08 · Know vs Act: does a memory that knows a habit make the agent act on it?

    KnowAct (arXiv 2607.29433) separates *knowing* a user's preference from *acting* on it. Here a case is
    one (memory method, persona, dimension A-F) on the file traces:

    - **Know pass**: asked directly about the habit, the method's retrieved context lets the reader pick the
      user's tier (L / M / R), as a bench item would.
    - **Act pass**: on three held-out tasks that fully activate the dimension, three seeds each, each
      retrieved with the task's own prompt, the acting agent works in fresh sandboxes from that context
      alone. The Act reader (fit on the other personas' sessions) must read the nine runs together as the
      user's tier, *and* more of them must read so one by one than of the zero-memory runs of the same tasks
      and seeds. **Act strict** asks instead that the zero-memory runs do not read as the user's tier.
    - **Utilization Rate** = KP-AP / (KP-AP + KP-AF): of the habits the memory knows, the share it acts on.
      Each Know-pass / Act-fail case is rerun with oracle evidence and with the stated preference, which
      attributes the failure to retrieval, comprehension or application.

    The offline acting agent is the engine's own policy, run on the tiers `infer_preferences` reads from the
    context (unknown -> a tier drawn from the other personas', as for a typical user): a simplification of an
    LLM agent, which may follow a stated preference more (or less) reliably. The **Act ceiling** is the same
    judge on runs told the true tier: what the instrument can see at all. Every rate has a persona-clustered
    95% CI and its counts.
    """)
    return


@app.cell
def _():
    smoke = smoke_mode()  # `python notebooks/08_know_act.py -- --smoke` (or FILEGRAM_SMOKE=1)
    autorun = autorun_mode()  # no button to press as a script or in Jupyter
    return autorun, smoke


@app.cell
def _(smoke):
    with mo.status.spinner(title="Checking the corpus ..."):
        corpus = corpus_or_small(smoke, WORK, SMOKE_PERSONAS, SMOKE_TASKS)
        facts = corpus_facts(corpus)
    personas = natural_sorted(facts.sessions)
    _sessions = sum(len(by_task) for by_task in facts.sessions.values())
    mo.md(f"Corpus `{corpus}`: **{len(personas)} personas**, {_sessions:,} sessions.")
    return corpus, facts, personas


@app.cell
def _(facts, personas, seed):
    _splits = [persona_split(facts, p, int(seed.value)) for p in personas]
    _table = pl.DataFrame([{"persona": s.persona, "ingest": len(s.ingest), "act tasks": ", ".join(s.act_tasks),
                            **{f"{d} act": " ".join(s.act[d]) for d in s.act},
                            **{f"{d} evidence": f"{s.evidence[d]} ({s.evidence_sessions[d]})" for d in s.evidence}}
                           for s in _splits])
    mo.vstack([mo.md(f"## The splits (seed {seed.value})\nPer persona: how many sessions the memory ingests, "
                     "the held-out tasks that test each dimension's Act (each run with 3 seeds), and the evidence "
                     "label: the strongest "
                     "activation of the dimension among the ingested tasks (fully activating sessions in "
                     "brackets). C, D and E are designed to vary; A, B and F nearly always read full."),
               mo.ui.table(_table, selection=None)])
    return


@app.cell
def _(personas, smoke):
    methods = mo.ui.multiselect(options=METHODS, value=SMOKE_METHODS if smoke else list(knowact.DEFAULT_METHODS),
                                label="Methods")
    who = mo.ui.multiselect(options=personas, value=personas, label="Personas")
    seed = mo.ui.number(start=0, stop=999, step=1, value=0, label="Seed (split, questions, act runs)")
    run = mo.ui.run_button(label="Run KnowAct")
    mo.vstack([mo.md("Pick the memory methods, personas and seed (the splits table above follows the seed). "
                     "All 20 personas x the eight default methods take about four minutes on 2 cores; a rerun "
                     "with more methods or personas reuses what is already done."),
               mo.hstack([methods, who, seed], justify="start"), run])
    return methods, run, seed, who


@app.cell
def _(autorun, corpus, methods, run, seed, who):
    mo.stop(not (run.value or autorun), mo.md("Press **Run KnowAct**."))
    mo.stop(not (methods.value and who.value), mo.md("Pick at least one method and one persona."))
    out = WORK / "knowact" / f"v{VERSION}-seed{int(seed.value)}"  # run_knowact refuses to mix seeds or versions
    with mo.status.spinner(title=f"Know and Act of {len(methods.value)} methods on {len(who.value)} personas ..."):
        cases = knowact.run_knowact(corpus, out, methods=methods.value, personas=who.value, seed=int(seed.value),
                                    workers=2, progress=True)
    mo.md(f"**{cases.height} cases** ({cases['method'].n_unique()} methods x {cases['persona'].n_unique()} "
          f"personas x 6 dimensions) in `{out}`.")
    return cases, out


@app.cell
def _(cases):
    mo.vstack([mo.md("## Know / Act / Utilization per method\nCells: estimate [persona-clustered 95% CI]; "
                     "`KP-AP / KP` is Utilization's count; `KP-AF` the known-but-not-acted cases and the share "
                     "of each failure category. `Know free-form`: the memory describes the habit in its own "
                     "words (no options, so its floor is near 0, not 1/3), judged by the value judge."),
               mo.ui.table(summary_table(cases), selection=None)])
    return


@app.cell
def _(cases):
    mo.ui.plotly(knowact_bars(cases).figure)
    return


@app.cell
def _(cases):
    _stack = attribution_stack(cases)
    (mo.ui.plotly(_stack.figure) if _stack.data["n_kp_af"].sum()
     else mo.md("No Know-pass / Act-fail cases: nothing to attribute."))
    return


@app.cell
def _(cases):
    mo.vstack([mo.md("## The instrument: the Act ceiling per dimension\nThe runs told the true tier, judged like "
                     "every memory's runs. Where the ceiling is low, the habit rarely shows in a session (E: "
                     "a moderate curator often has nothing to delete), and Act on that dimension ranks little. "
                     "Beside it, the mean share of runs read as the user's tier one by one, zero memory (a "
                     "typical user's tiers) against told, and the false passes: Act where no context conveyed "
                     "the tier."),
               mo.ui.table(instrument_table(cases), selection=None)])
    return


@app.cell
def _(cases):
    _by = ["method", "evidence"]
    mo.vstack([mo.md("## By evidence strength\nHow visible the dimension was in the ingested sessions (full / "
                     "partial / none), the analogue of KnowAct's explicit / incidental / inferential preferences. "
                     "Watch `n`: a thin row's CI is wide."),
               mo.ui.table(rate_cells(knowact.rates(cases, by=_by), _by), selection=None)])
    return


@app.cell
def _(cases, out):
    case = pick_worked_case(cases)
    _shown = worked_case(case, out)
    mo.vstack([
        mo.md(f"## One worked case: `{case['method']}` / `{case['persona']}` / dimension {case['dimension']} on "
              f"{case['act_tasks']} (the first run of {case['act_task']} shown)\nTrue tier **{case['true_tier']}**, "
              "inferred from the context "
              f"**{case['inferred_tier']}**; Know {'pass' if case['know_pass'] else 'fail'}, Act "
              f"{'pass' if case['act_pass'] else 'fail'}. Workspace trees after the act run (`+` created, "
              "`-` gone):"),
        mo.hstack([mo.vstack([mo.md("**With memory**"), mo.plain_text(_shown["memory_tree"])]),
                   mo.vstack([mo.md("**Zero memory**"), mo.plain_text(_shown["zero_tree"])])], widths="equal"),
    ])
    return (case,)


@app.cell
def _(case, corpus):
    with mo.status.spinner(title="Recomputing the memory run's context ..."):
        _context = knowact.act_context(corpus, case)
    mo.md(f"**The context the memory run acted on** ({len(_context):,} characters, the first 2,000):\n\n"
          f"```text\n{_context[:2000]}\n```")
    return


@app.cell
def _(case):
    mo.hstack([
        mo.stat(value=case["memory_tier"], label=f"memory runs ({case['act_runs']}) read as",
                caption=f"p(true {case['true_tier']}) = {case['memory_p_true']:.2f}"),
        mo.stat(value=case["zero_tier"], label="zero-memory runs read as",
                caption=f"p(true {case['true_tier']}) = {case['zero_p_true']:.2f}"),
        mo.stat(value=case["true_tier"], label="true tier", caption=f"neutral default {case['neutral_tier']}"),
    ], justify="start")
    return


@app.cell
def _(cases):
    mo.vstack([mo.md("## Every case\nFilter and sort by any column (method, persona, dimension, evidence, "
                     "`know_pass`, `act_pass`, `attribution` ...); trajectories are relative to the run folder."),
               mo.ui.table(cases, selection=None, page_size=12)])
    return


@app.cell
def _():
    _tables = {name: FIGURES / f"{name}.csv" for name in ("knowact_rates", "knowact_evidence")}
    mo.vstack([mo.md("## The full run (`make reproduce`: all 20 personas, all 13 methods)"),
               *[mo.ui.table(pl.read_csv(path), selection=None) if path.is_file()
                 else mo.md(f"`{path.name}`: run `make reproduce` to write it.") for path in _tables.values()]])
    return


if __name__ == "__main__":
    app.run()
