import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import tempfile

    import marimo as mo

    import filegram_kit as fk
    from filegram_kit.bench import build_items, evaluate, table3
    from filegram_kit.engine import build_corpus
    from filegram_kit.llm import get_backend
    from filegram_kit.memory import get_memory
    from filegram_kit.notebook_args import cli_args, smoke_mode  # noqa: F401 (in Jupyter: marimo's outputs there too)

    WORK = tempfile.TemporaryDirectory(prefix="filegram-tour-").name


@app.cell
def _():
    mo.md(r"""
    # 00 · A tour: from personas to a Table 3 row in a minute
    Two personas do three file tasks each in a sandbox; every file operation is recorded; a memory is built from
    the traces; FileGramBench asks about them. Each later notebook opens one of these steps up.
    """)
    return


@app.cell
def _():
    # `python notebooks/00_tour.py -- --backend openai_compat` (a local server: docs/backends.md) reads with a model
    backend = get_backend(str(cli_args().get("backend") or "offline"))  # a cell: the setup has no arguments yet
    return (backend,)


@app.cell
def _():
    build_corpus(WORK, profiles=["p1", "p6"], tasks=["T-01", "T-05", "T-12"], workers=1, progress=False)
    trajs = fk.load_trajectories(WORK, progress=False)
    events = fk.events_frame(fk.clean(trajs)[0]).select("trajectory_id", "event_type", "file_path")
    mo.vstack([mo.md(f"**The engine** (notebook 02): {len(trajs)} trajectories, {events.height} file actions."),
               mo.ui.table(events.head(8), selection=None), mo.md("**The 17-D fingerprint** (notebook 03):"),
               mo.ui.table(fk.fingerprints(trajs), selection=None)])
    return (trajs,)


@app.cell
def _(backend, trajs):
    memory = get_memory("filegramos").ingest([t for t in trajs if t.profile_id == "p1_methodical"], backend=backend)
    context = memory.retrieve("How does this user organise folders?", backend=backend)
    items = build_items(WORK, seed=0)
    rows = evaluate(items, WORK, ["no_context", "filegramos"], backend=backend, out=f"{WORK}/results", workers=1,
                    progress=False)
    mo.vstack([mo.md(f"**FileGramOS** (notebook 04, backend {backend.name}) holds {memory.memory_tokens():,} tokens "
                     "of p1; a reader asking *How does this user organise folders?* gets:"),
               mo.plain_text(context.text[:900]),
               mo.md(f"**FileGramBench** (notebook 05): {len(items)} items, one shared reader. Table 3's layout on "
                     "this tiny sample (too few personas for CIs):"), mo.ui.table(table3(rows), selection=None)])
    return


if __name__ == "__main__":
    app.run()
