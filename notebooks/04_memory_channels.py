import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import json
    import tempfile
    from pathlib import Path

    import marimo as mo
    import polars as pl

    import filegram_kit as fk
    from filegram_kit.engine import build_corpus
    from filegram_kit.notebook_corpus import corpus_or_small
    from filegram_kit.llm import get_backend
    from filegram_kit.memory import get_memory
    from filegram_kit.memory.filegramos import Knobs, target_dimensions
    from filegram_kit.notebook_args import autorun_mode, smoke_mode
    from filegram_kit.traces.schema import DIMENSIONS

    PROFILES = fk.load_profiles()  # ground truth: only for the comparison column, never given to the memory
    BACKEND = get_backend("offline")
    DEFAULT = Knobs()  # paper Table 14 defaults
    SMOKE_TASKS = ["T-01", "T-05", "T-12", "T-16", "T-24", "T-26"]  # 6 tasks, 3 of them perturbed for p1
    SCRATCH = tempfile.TemporaryDirectory(prefix="filegram-nb04-")  # removed when the kernel exits
    WORK = Path(SCRATCH.name)


@app.cell
def _():
    mo.md(r"""
    # 04 · FileGramOS memory channels

    FileGramOS (paper §5) builds one user's memory bottom-up from their file actions. **Stage 1**
    encodes every session as an *engram*: its 17-D procedural fingerprint, semantic content (language,
    file types, naming, writing style, 800-character chunks of what it wrote) and 2–5 narrated episodes.
    **Stage 2** consolidates the engrams into three channels: *procedural* (per-feature statistics and an
    L/M/R reading per dimension), *semantic* (a chunk index and style summary) and *episodic* (episode
    and session clusters, drift flags). **Stage 3**, at query time, picks the dimensions the question is
    about and concatenates the three channel blocks into one context. Pick a persona, build its memory
    with the offline backend, look inside each channel, then ask it something and turn the retrieval knobs.
    """)
    return


@app.cell
def _():
    smoke = smoke_mode()  # `python notebooks/04_memory_channels.py -- --smoke` (or FILEGRAM_SMOKE=1): 1 persona, 6 tasks
    autorun = autorun_mode()  # no button to press when run as a script or in Jupyter
    return autorun, smoke


@app.cell
def _(smoke):
    persona = mo.ui.dropdown(options=list(PROFILES), value="p1_methodical", label="Persona")
    ingest = mo.ui.run_button(label="Build the memory")
    _where = (f"{len(SMOKE_TASKS)} tasks built into a temporary folder" if smoke
              else "all 32 tasks of the full corpus in `data/corpus` (built once, about 20 s)")
    mo.vstack([mo.md(f"The persona's sessions: {_where}. Ingest takes a few seconds offline."),
               mo.hstack([persona, ingest], justify="start")])
    return ingest, persona


@app.cell
def _(autorun, ingest, persona, smoke):
    mo.stop(not (ingest.value or autorun), mo.md("Press **Build the memory** to ingest the persona's sessions."))
    with mo.status.spinner(title=f"Ingesting {persona.value} ..."):
        corpus = corpus_or_small(smoke, WORK, [persona.value], SMOKE_TASKS)
        trajs = fk.load_trajectories(corpus, profiles=[persona.value])
        memory = get_memory("filegramos").ingest(trajs, backend=BACKEND)
        stored_tokens = memory.memory_tokens()
    mo.md(f"**{persona.value}**: {len(trajs)} sessions -> {len(memory.engrams_)} engrams, "
          f"{stored_tokens:,} stored tokens (estimated).")
    return corpus, memory, stored_tokens


@app.cell
def _(memory):
    _rows = [{"session": e.session, "task_id": e.task_id, "events": e.event_count,
              "behavioral events": e.behavioral_event_count, "episodes": len(e.episodes),
              "chunks": len(e.semantic.chunks), "language": e.semantic.language,
              "files created": sum(e.semantic.file_types.values())} for e in memory.engrams_]
    mo.vstack([mo.md("## Stage 1: one engram per session"), mo.ui.table(pl.DataFrame(_rows), selection=None)])
    return


@app.cell
def _(memory, persona):
    _proc = memory.channels_["procedural"]
    _truth = PROFILES[persona.value].tiers
    _rows = [{"dimension": f"{r.dimension} {DIMENSIONS[r.dimension].name}", "memory reads": r.tier,
              "reading": r.label, "confidence": r.confidence,
              **{f"P({t})": round(p, 3) for t, p in r.probabilities.items()},
              "ground truth": _truth[r.dimension].value, "match": r.tier == _truth[r.dimension].value}
             for r in _proc.readings]
    mo.vstack([
        mo.md(f"## Procedural channel\nAn L/M/R reading per dimension from the mean fingerprint of "
              f"{_proc.sessions} sessions (a classifier calibrated on a separate set of synthetic personas). "
              "**Ground truth** is the persona's tier from Table 9: the memory never saw it, it is shown here "
              "only to check the readings."),
        mo.ui.table(pl.DataFrame(_rows), selection=None),
    ])
    return


@app.cell
def _(memory):
    _proc = memory.channels_["procedural"]
    _absent = "; ".join(_proc.absences) if _proc.absences else "none: every feature was seen at least once"
    mo.vstack([mo.md("Per-feature statistics over the sessions (what the procedural block quotes):"),
               mo.ui.table(_proc.stats, selection=None, page_size=17),
               mo.md(f"**Never observed** (absences): {_absent}.")])
    return


@app.cell
def _(memory):
    _sem = memory.channels_["semantic"]
    _naming = ", ".join(f"{k.replace('_', ' ')} {v:.0%}" for k, v in _sem.naming.items() if k != "mean_length" and v)
    mo.md(f"""
    ## Semantic channel
    - **Languages** (sessions): {", ".join(f"{k} {v}" for k, v in _sem.languages.items()) or "none"}
    - **File types created**: {", ".join(f"{k} {v}" for k, v in _sem.file_types.items()) or "none"}
    - **Naming**: {_naming or "no convention"}; mean name length {_sem.naming.get("mean_length", 0):g}
    - **Representative names**: {", ".join(f"`{n}`" for n in _sem.filenames)}
    - **Style**: {", ".join(f"{k} {s['value']} ({s['sessions']}/{s['of']})" for k, s in _sem.style.items())}
    - **Style summary**: {_sem.style_summary or "nothing written"}
    """)
    return


@app.cell
def _(memory):
    _sem = memory.channels_["semantic"]
    _chunks = pl.DataFrame([{"session": c.session, "kind": c.kind, "file": c.file, "chars": len(c.text),
                             "events": len(c.event_ids), "text": c.text[:160]} for c in _sem.chunks])
    _previews = pl.DataFrame([{"session": s, "file": p.file, "chars": p.chars, "preview": p.preview[:160]}
                              for s, items in _sem.previews.items() for p in items])
    mo.vstack([mo.md(f"The chunk index: {len(_sem.chunks)} chunks (created files and edit diffs), each embedded "
                     f"({_sem.embeddings.shape[-1] if _sem.embeddings.size else 0}-D) for retrieval."),
               mo.ui.table(_chunks, selection=None, page_size=8),
               mo.accordion({"Created files and their previews": mo.ui.table(_previews, selection=None)})])
    return


@app.cell
def _(memory):
    _epi = memory.channels_["episodic"]
    _clusters = pl.DataFrame([{"session": s, "cluster": c, "cluster profile": _epi.cluster_profiles[c]}
                              for s, c in _epi.session_clusters.items()]).sort("cluster", "session")
    mo.vstack([mo.md(f"## Episodic channel\n{len(_epi.episodes)} episodes in {len(set(_epi.episode_clusters))} "
                     "episode clusters; sessions grouped by fingerprint:"),
               mo.ui.table(_clusters, selection=None)])
    return


@app.cell
def _(corpus, memory):
    _shifted = {s["trajectory_id"]: s["dimension"]
                for s in json.loads((corpus / "perturbations.json").read_text(encoding="utf-8"))}
    _truth = pl.col("trajectory_id").replace_strict(_shifted, default=None, return_dtype=pl.String)
    _drift = (memory.drift_.with_columns(_truth.alias("perturbed (ground truth)"))
              .select("session", "task_type", "deviation", "threshold", "flagged", "task_adjusted_deviation", "judge",
                      "shifted_features", "perturbed (ground truth)", "rationale"))
    mo.vstack([mo.md("Drift: each session's deviation from the user's own centroid (paper Eq. 1), flagged above "
                     "mean + 1.5 sd; flagged sessions get the anomaly judge's label. `perturbed (ground truth)` names "
                     "the dimension the corpus build shifted in that session, for comparison only."),
               mo.ui.table(_drift, selection=None)])
    return


@app.cell
def _(memory):
    session = mo.ui.dropdown(options=[e.session for e in memory.engrams_], value=memory.engrams_[0].session,
                             label="Session")
    mo.vstack([mo.md("### The episodes of one session\nEach session is cut into 2–5 episodes where its focus shifts, "
                     "each narrated from its own events."), session])
    return (session,)


@app.cell
def _(memory, session):
    _eps = [ep for ep in memory.channels_["episodic"].episodes if ep.session == session.value]
    mo.vstack([mo.md(f"### {ep.index + 1}. {ep.title}\n{ep.narrative}\n\n*{ep.summary}* ({len(ep.event_ids)} events)")
               for ep in _eps])
    return


@app.cell
def _():
    query = mo.ui.text_area(value="How deeply does this user nest folders, and do they clean up old files?",
                            label="Query", full_width=True, rows=2)
    mo.vstack([mo.md("## Stage 3: ask the memory\nThe query picks target dimensions by keyword; their statistics "
                     "are marked in the procedural block, and chunks and episodes are ranked by similarity."), query])
    return (query,)


@app.cell
def _():
    display_chars = mo.ui.dropdown(options=[300, 500, 800, 1000], value=DEFAULT.display_chars, label="display_chars")
    preview_chars = mo.ui.dropdown(options=[200, 400], value=DEFAULT.preview_chars, label="preview_chars")
    files_per_task = mo.ui.dropdown(options=[2, 3, 5], value=DEFAULT.files_per_task, label="files_per_task")
    edit_chains = mo.ui.switch(value=DEFAULT.edit_chains, label="edit chains")
    content_previews = mo.ui.switch(value=DEFAULT.content_previews, label="content previews")
    channels = mo.ui.multiselect(options=list(DEFAULT.channels), value=list(DEFAULT.channels), label="channels")
    mo.vstack([mo.md("Retrieval knobs (paper Tables 13–14; defaults as in the paper). They re-read the same "
                     "ingested memory, so changing them is instant."),
               mo.hstack([display_chars, preview_chars, files_per_task], justify="start"),
               mo.hstack([edit_chains, content_previews, channels], justify="start")])
    return channels, content_previews, display_chars, edit_chains, files_per_task, preview_chars


@app.cell
def _(channels, content_previews, display_chars, edit_chains, files_per_task, memory, preview_chars, query):
    reader = memory.with_knobs(display_chars=display_chars.value, preview_chars=preview_chars.value,
                               files_per_task=files_per_task.value, edit_chains=edit_chains.value,
                               content_previews=content_previews.value,
                               channels=[c for c in DEFAULT.channels if c in channels.value])
    context = reader.retrieve(query.value, backend=BACKEND)
    targets = target_dimensions(query.value)
    return context, targets


@app.cell
def _(context, memory, stored_tokens, targets):
    _dims = ", ".join(f"{d} {DIMENSIONS[d].name}" for d in targets) or "none matched (no dimension is marked)"
    mo.vstack([
        mo.md(f"**Target dimensions:** {_dims}\n\n"
              f"**This context: {context.tokens:,} tokens**, quoting {len(context.sources)} source events. "
              f"**Stored memory: {stored_tokens:,} tokens** for {len(memory.engrams_)} sessions "
              f"(paper Table 3: ~109.7K stored tokens per profile of 32 sessions, ~4.3K per query). Our counts are "
              "estimates (`filegram_kit.util.tokens.estimate_tokens`: about 4 characters per token, 1 per CJK character)."),
        mo.ui.tabs({name: mo.plain_text(body) for name, body in context.blocks.items()})
        if context.blocks else mo.md("_No channel selected: the context is empty._"),
    ])
    return


@app.function
def test_knobs_change_the_context_but_not_the_memory():
    with tempfile.TemporaryDirectory() as tmp:
        build_corpus(tmp, profiles=["p3_efficient_executor"], tasks=SMOKE_TASKS[:3], workers=1, progress=False)
        memory = get_memory("filegramos").ingest(fk.load_trajectories(tmp, progress=False), backend=BACKEND)
        query = "Does this user nest folders?"
        full = memory.retrieve(query, backend=BACKEND)
        lean = memory.with_knobs(channels=("procedural",)).retrieve(query, backend=BACKEND)
        assert list(lean.blocks) == [next(iter(full.blocks))] and lean.tokens < full.tokens
        assert memory.memory_tokens() > full.tokens and "C" in target_dimensions(query)


if __name__ == "__main__":
    app.run()
