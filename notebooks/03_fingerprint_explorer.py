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
    from filegram_kit.behaviour.drift import drift
    from filegram_kit.engine import build_corpus
    from filegram_kit.notebook_corpus import corpus_or_small
    from filegram_kit.behaviour.fingerprint import FEATURE_DEFINITIONS
    from filegram_kit.notebook_args import autorun_mode, smoke_mode
    from filegram_kit.report import fingerprint_views as fv
    from filegram_kit.report.tables import corpus_tiers, fingerprint_table
    from filegram_kit.traces.schema import DIMENSION_CODES, DIMENSIONS
    from filegram_kit.util.natural_order import natural_sorted

    # smoke mode: 4 contrasting personas x 8 tasks (5 of them perturbation candidates), built in a few seconds
    SMOKE_PERSONAS = ["p1_methodical", "p3_efficient_executor", "p7_visual_reader", "p12_prolific_scanner"]
    SMOKE_TASKS = ["T-01", "T-05", "T-09", "T-12", "T-16", "T-22", "T-24", "T-26"]
    SCRATCH = tempfile.TemporaryDirectory(prefix="filegram-nb03-")  # removed when the kernel exits
    WORK = Path(SCRATCH.name)


@app.cell
def _():
    mo.md(r"""
    # 03 · Fingerprint explorer

    FileGramOS starts from a 17-number procedural fingerprint per session (paper Table 6, §5): how
    much of the reading is search, how much text a session writes, how deep its folders go, how
    often it edits, deletes, or produces data files and images. Each feature belongs to one of the
    six dimensions. This notebook shows the fingerprints of a whole corpus, how each feature splits
    by its dimension's tier, a 2-D map of every session, which sessions drift from their persona's
    habits (and whether those are the perturbed ones), and two personas side by side.

    Tiers and perturbation tags are ground truth from the corpus build. Here they only colour and
    score the views; memory systems never see them.
    """)
    return


@app.cell
def _():
    smoke = smoke_mode()  # `python notebooks/03_fingerprint_explorer.py -- --smoke` (or FILEGRAM_SMOKE=1): small corpus
    autorun = autorun_mode()  # no button to press when run as a script or in Jupyter
    return autorun, smoke


@app.cell
def _(smoke):
    load = mo.ui.run_button(label="Load the corpus")
    _what = (f"a small corpus ({len(SMOKE_PERSONAS)} personas x {len(SMOKE_TASKS)} tasks) in a temporary folder"
             if smoke else "the full corpus in `data/corpus` (20 personas x 32 tasks; built once, about 20 s)")
    mo.vstack([mo.md(f"This loads {_what}."), load])
    return (load,)


@app.cell
def _(autorun, load, smoke):
    mo.stop(not (load.value or autorun), mo.md("Press **Load the corpus** to start."))
    with mo.status.spinner(title="Building or loading the corpus ..."):
        corpus = corpus_or_small(smoke, WORK, SMOKE_PERSONAS, SMOKE_TASKS)
        trajs = fk.clean(fk.load_trajectories(corpus)).trajectories
    return corpus, trajs


@app.cell
def _(corpus, trajs):
    fp = fk.fingerprints(trajs)
    profiles = fk.load_profiles(corpus / "profiles.json")  # ground truth, for colouring only
    perturbations = json.loads((corpus / "perturbations.json").read_text(encoding="utf-8"))
    frame = fv.tier_frame(fp, profiles, perturbations)
    with mo.status.spinner(title="Scoring drift ..."):
        drifted = drift(trajs)  # per persona: deviation (Eq. 1), flags, offline anomaly judge
    mo.md(f"**{fp.height} sessions** of {fp['profile_id'].n_unique()} personas on {fp['task_id'].n_unique()} "
          f"tasks, {int(frame['perturbed'].sum())} of them perturbed (one dimension shifted one tier).")
    return drifted, fp, frame, profiles


@app.cell
def _(fp):
    mo.vstack([mo.md("## The 17-D fingerprint\nOne row per session, the features in Table 6 order "
                     "(`filegram_kit.behaviour.fingerprint.fingerprints`)."),
               mo.ui.table(fp, selection=None, page_size=10)])
    return


@app.cell
def _(corpus, fp):
    mo.vstack([
        mo.md("## Table 6: what each feature measures, and its mean per tier here\n"
              "`mean_L/M/R` average every session whose persona has that tier in the feature's dimension (all "
              "tasks, so tasks that do not activate the dimension dilute the gap). `expected`: the tier the "
              "dimension's definition should push highest vs lowest; `auc` = P(a session of the first scores "
              "above one of the second), 0.5 = no separation."),
        mo.ui.table(fingerprint_table(fp, corpus_tiers(corpus, fp)), selection=None, page_size=17),
    ])
    return


@app.cell
def _():
    feature = mo.ui.dropdown(options={f"{k} ({d.dimension})": k for k, d in FEATURE_DEFINITIONS.items()},
                             value="dirs_created (C)", label="Feature")
    mo.vstack([mo.md("## One feature, split by its dimension's tier"), feature])
    return (feature,)


@app.cell
def _(feature, frame):
    _d = FEATURE_DEFINITIONS[feature.value]
    mo.vstack([mo.md(f"**{feature.value}** ({_d.group}, from {_d.source}): {_d.computation}. *{_d.interpretation}.*"),
               fv.feature_by_tier(frame, feature.value)])
    return


@app.cell
def _():
    color_by = mo.ui.dropdown(options={"persona": "profile_id", **{f"tier of {d} {DIMENSIONS[d].name}": f"tier_{d}"
                                                                   for d in DIMENSION_CODES}},
                              value="persona", label="Colour by")
    show_drift = mo.ui.switch(value=True, label="size by deviation, outline flagged sessions")
    mo.vstack([mo.md(r"""
    ## A map of every session
    The 17 features (counts and sizes log1p'd, every feature standardised), projected on their first two
    principal components. Diamonds are perturbed sessions. With deviation on, a marker grows with its
    session's distance from its persona's centroid (paper Eq. 1) and flagged sessions get a black outline.
    """), mo.hstack([color_by, show_drift], justify="start")])
    return color_by, show_drift


@app.cell
def _(color_by, drifted, frame, show_drift):
    fmap = fv.fingerprint_map(frame, color=color_by.value, deviation=drifted if show_drift.value else None)
    mo.vstack([fmap.figure, mo.accordion({"Coordinates": mo.ui.table(fmap.data, selection=None, page_size=10)})])
    return


@app.cell
def _(drifted, frame):
    _flagged = (drifted.filter(pl.col("flagged"))
                .join(frame.select("trajectory_id", "perturbed", "perturbed_dimension"), on="trajectory_id")
                .select("trajectory_id", "task_type", "deviation", "threshold", "task_adjusted_deviation", "judge",
                        "shifted_features", "perturbed", "perturbed_dimension", "rationale")
                .sort("deviation", descending=True))
    mo.vstack([
        mo.md("## Drift: which sessions leave their persona's habits?\n"
              "Does the deviation score find the perturbed sessions? AUC = P(a perturbed session scores above a "
              "normal one); `task_adjusted_deviation` first removes the shift the session's task type explains."),
        mo.ui.table(fv.perturbation_auc(frame, drifted), selection=None),
        mo.md(f"**{_flagged.height} flagged sessions**, with the offline judge's label (variation = the task type "
              "explains it, outlier = it does not) and, as ground truth, whether the session was perturbed:"),
        mo.ui.table(_flagged, selection=None, page_size=10),
    ])
    return


@app.cell
def _(fp, smoke):
    _ids = natural_sorted(fp["profile_id"].unique())
    persona_a = mo.ui.dropdown(options=_ids, value="p1_methodical", label="Persona a")
    persona_b = mo.ui.dropdown(options=_ids, value="p3_efficient_executor" if smoke else "p2_thorough_reviser",
                               label="Persona b")
    mo.vstack([mo.md("## Two personas side by side\nMean fingerprint of each, and the difference in standard "
                     "deviations over all sessions (bars coloured by dimension)."), mo.hstack([persona_a, persona_b])])
    return persona_a, persona_b


@app.cell
def _(fp, persona_a, persona_b, profiles):
    _cmp = fv.compare_personas(fp, persona_a.value, persona_b.value)
    _tiers = " · ".join(f"{p}: **{profiles[p].vector}**" for p in (persona_a.value, persona_b.value))
    mo.vstack([mo.md(f"True tiers A–F (ground truth): {_tiers}"), _cmp.figure,
               mo.ui.table(_cmp.data, selection=None, page_size=17)])
    return


@app.function
def test_the_map_has_one_point_per_session_and_perturbed_ones_are_marked():
    with tempfile.TemporaryDirectory() as tmp:
        build_corpus(tmp, profiles=SMOKE_PERSONAS[:2], tasks=["T-01", "T-16"], workers=1, progress=False)
        fp = fk.fingerprints(fk.load_trajectories(tmp, progress=False))
        shifts = json.loads((Path(tmp) / "perturbations.json").read_text(encoding="utf-8"))
        data = fv.fingerprint_map(fv.tier_frame(fp, fk.load_profiles(), shifts)).data
        assert sorted(data["trajectory_id"]) == sorted(fp["trajectory_id"])
        assert sorted(data.filter(pl.col("perturbed"))["trajectory_id"]) == sorted(s["trajectory_id"] for s in shifts)


if __name__ == "__main__":
    app.run()
