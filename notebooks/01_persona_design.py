import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import marimo as mo
    import polars as pl

    import filegram_kit as fk
    from filegram_kit.behaviour import persona_space as ps
    from filegram_kit.notebook_args import serve_jupyter_kernel
    from filegram_kit.traces.profiles import design_pairs
    from filegram_kit.report import tables
    from filegram_kit.report.figures import distance_heatmap, profile_heatmap

    serve_jupyter_kernel()  # in a Jupyter kernel: controls, tables and figures as Jupyter outputs (else nothing)
    PAPER = fk.load_profiles()


@app.cell
def _():
    mo.md(r"""
    # 01 · Persona design

    FileGram describes a user by six behavioral dimensions, each on a Left–Middle–Right scale
    (paper Table 2). Twenty personas cover every tier of every dimension at least six times, and
    some pairs are built to differ on only one or two dimensions, so a memory system has to pick
    up fine differences. This notebook shows that design and lets you sample new personas.
    """)
    return


@app.cell
def _():
    mo.vstack([mo.md("## The dimension grid (Table 2)"), mo.ui.table(tables.table02_dimensions(), selection=None)])
    return


@app.cell
def _():
    view = mo.ui.dropdown(options=["dimensions", "attributes"], value="dimensions", label="Show tiers of")
    view
    return (view,)


@app.cell
def _(view):
    mo.vstack([
        mo.md("## The profile matrix (Table 9)\nBlue = L, sand = M, red = R. Switch to *attributes* for the "
              "16 behavioral attributes of Table 8 (ground truth for Profile Reconstruction)."),
        profile_heatmap(PAPER, attributes=view.value == "attributes"),
        mo.md("Tier counts per dimension:"),
        mo.ui.table(ps.tier_counts(PAPER), selection=None),
    ])
    return


@app.cell
def _():
    pairs = ps.pair_table(design_pairs())
    mo.vstack([
        mo.md("## Fine vs coarse persona pairs\nThe release's designed pairs, with the dimensions they really "
              "differ on (Hamming) and the summed tier gap (ordinal, L↔R counts 2)."),
        mo.ui.table(pairs, selection=None),
    ])
    return (pairs,)


@app.cell
def _():
    distance_kind = mo.ui.radio(options=["hamming", "ordinal"], value="hamming", label="Distance")
    distance_kind
    return (distance_kind,)


@app.cell
def _(distance_kind):
    distance_heatmap(PAPER, kind=distance_kind.value)
    return


@app.cell
def _():
    n_new = mo.ui.slider(3, 60, value=12, label="New personas", show_value=True)
    seed = mo.ui.number(start=0, stop=10_000, value=0, label="Seed")
    mo.vstack([mo.md("## Sample new personas\nEvery tier of every dimension is represented; no sampled "
                     "persona repeats a paper persona's tier vector."), mo.hstack([n_new, seed])])
    return n_new, seed


@app.cell
def _(n_new, seed):
    sampled = fk.sample_profiles(n_new.value, seed=int(seed.value))
    mo.vstack([
        profile_heatmap(sampled, title=f"{len(sampled)} sampled personas (seed {int(seed.value)})"),
        mo.ui.table(ps.tier_counts(sampled), selection=None),
        mo.md("Nearest paper persona of each new one (ordinal distance):"),
        mo.ui.table(ps.nearest(sampled, PAPER), selection=None),
    ])
    return (sampled,)


@app.cell
def _():
    who = mo.ui.dropdown(options=list(PAPER), value="p1_methodical", label="Persona")
    schedule = pl.DataFrame([vars(p) for p in fk.perturbation_schedule()]).with_columns(
        pl.col("from_tier", "to_tier").cast(pl.String))
    mo.vstack([mo.md("## Perturbations\nFive of eight candidate tasks per persona shift one task-relevant "
                     "dimension by one tier (100 perturbed trajectories in all)."), who])
    return schedule, who


@app.cell
def _(schedule, who):
    mo.ui.table(schedule.filter(pl.col("profile_id") == who.value), selection=None)
    return


@app.function
def test_every_tier_appears_at_least_five_times():
    counts = ps.tier_counts(PAPER)
    assert counts.select("L", "M", "R").min_horizontal().min() >= 5


@app.function
def test_designed_fine_pairs_are_closer_than_coarse_ones():
    pairs = ps.pair_table(design_pairs())
    fine = pairs.filter(pl.col("kind") == "fine")["hamming"].max()
    coarse = pairs.filter(pl.col("kind") == "coarse")["hamming"].min()
    assert fine < coarse


if __name__ == "__main__":
    app.run()
