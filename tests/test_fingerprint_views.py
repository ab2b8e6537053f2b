"""Fingerprint views for notebook 03, on small hand-built fingerprint frames."""

import numpy as np
import polars as pl
import pytest

import filegram_kit as fk
from filegram_kit.behaviour.fingerprint import FEATURES
from filegram_kit.report import fingerprint_views as fv
from filegram_kit.traces.profiles import Perturbation
from filegram_kit.traces.schema import Tier

PROFILES = fk.load_profiles()
A, B = "p1_methodical", "p3_efficient_executor"


def _fp(rows: list[tuple[str, str, dict[str, float]]]) -> pl.DataFrame:
    """A fingerprint frame: (profile, task, {feature: value}) per row, unlisted features 0."""
    return pl.DataFrame([{"trajectory_id": f"{p}_{t}", "profile_id": p, "task_id": t,
                          **{f: float(values.get(f, 0.0)) for f in FEATURES}} for p, t, values in rows])


def _clusters(n: int = 6, seed: int = 0) -> pl.DataFrame:
    """Persona A writes much and never searches, persona B searches and writes little: two clear clusters."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        rows.append((A, f"T-{i:02d}", {"files_created": 20 + rng.integers(0, 3), "total_output_chars": 9000 + 50 * i,
                                      "search_ratio": 0.02 * rng.random()}))
        rows.append((B, f"T-{i:02d}", {"files_created": 1 + rng.integers(0, 2), "total_output_chars": 300 + 10 * i,
                                      "search_ratio": 0.6 + 0.05 * rng.random()}))
    return _fp(rows)


def test_tier_frame_gives_true_tiers_and_applies_perturbations():
    fp = _fp([(A, "T-01", {}), (A, "T-16", {}), (B, "T-01", {})])
    shifted = {"trajectory_id": f"{A}_T-16", "profile_id": A, "task_id": "T-16", "dimension": "B",
               "from_tier": "L", "to_tier": "M"}
    frame = fv.tier_frame(fp, PROFILES, [shifted]).sort("trajectory_id")
    rows = {r["trajectory_id"]: r for r in frame.iter_rows(named=True)}
    assert PROFILES[A].tiers["B"].value == "L"
    assert rows[f"{A}_T-16"]["tier_B"] == "M" and rows[f"{A}_T-01"]["tier_B"] == "L"
    assert rows[f"{A}_T-16"]["tier_A"] == PROFILES[A].tiers["A"].value  # other dimensions untouched
    assert rows[f"{A}_T-16"]["perturbed"] and rows[f"{A}_T-16"]["perturbed_dimension"] == "B"
    assert not rows[f"{B}_T-01"]["perturbed"] and rows[f"{B}_T-01"]["perturbed_dimension"] is None
    assert rows[f"{B}_T-01"]["tier_C"] == PROFILES[B].tiers["C"].value
    assert set(FEATURES) <= set(frame.columns) and frame.height == 3


def test_tier_frame_accepts_perturbation_objects_and_no_perturbations():
    fp = _fp([(A, "T-16", {})])
    shift = Perturbation(A, "T-16", "F", Tier.M, Tier.R)
    assert fv.tier_frame(fp, PROFILES, [shift])["tier_F"].to_list() == ["R"]
    plain = fv.tier_frame(fp, PROFILES)
    assert plain["tier_F"].to_list() == [PROFILES[A].tiers["F"].value] and not plain["perturbed"].any()


def test_tier_frame_names_unknown_profiles():
    with pytest.raises(KeyError, match="nobody"):
        fv.tier_frame(_fp([("nobody", "T-01", {})]), PROFILES)


def test_pca_separates_two_planted_clusters():
    fp = _clusters()
    data = fv.fingerprint_map(fv.tier_frame(fp, PROFILES)).data
    pc1 = {pid: data.filter(pl.col("profile_id") == pid)["pc1"] for pid in (A, B)}
    assert pc1[A].min() > pc1[B].max() or pc1[B].min() > pc1[A].max()  # the first axis splits them
    assert data.height == fp.height and data["trajectory_id"].to_list() == fp["trajectory_id"].to_list()


def test_pca_is_deterministic_and_explains_the_planted_axis():
    x = fv.feature_matrix(_clusters())
    coords, share, loadings = fv.pca_2d(x)
    again, _, _ = fv.pca_2d(x[::-1])
    assert np.allclose(coords[::-1], again)  # signs fixed: row order does not flip the picture
    assert share[0] > 0.8 and share[0] >= share[1]
    top = {FEATURES[i] for i in np.argsort(-np.abs(loadings[0]))[:3]}
    assert top == {"files_created", "total_output_chars", "search_ratio"}


def test_feature_matrix_logs_counts_and_standardises():
    fp = _fp([(A, "T-01", {"files_created": 0, "search_ratio": 0.1}), (A, "T-02", {"files_created": 99,
                                                                                "search_ratio": 0.3})])
    x = fv.feature_matrix(fp)
    assert np.allclose(x.mean(axis=0), 0) and np.allclose(x[:, FEATURES.index("dirs_created")], 0)  # constant -> 0
    assert np.allclose(np.abs(x[:, FEATURES.index("files_created")]), 1)


def test_map_marks_perturbed_and_flagged_sessions():
    fp = _clusters(n=3)
    frame = fv.tier_frame(fp, PROFILES, [{"trajectory_id": f"{A}_T-01", "dimension": "B", "to_tier": "M"}])
    deviation = pl.DataFrame({"trajectory_id": fp["trajectory_id"], "deviation": [float(i) for i in range(fp.height)],
                              "flagged": [t == f"{B}_T-02" for t in fp["trajectory_id"]], "judge": None,
                              "shifted_features": [["files_created"]] * fp.height},
                             schema_overrides={"judge": pl.String})
    out = fv.fingerprint_map(frame, color="tier_B", deviation=deviation)
    points = {}
    for trace in out.figure.data:
        if trace.x and trace.x[0] is not None:
            marker = trace.marker
            for i, text in enumerate(trace.hovertext):
                points[text.split("<br>")[0]] = (marker.symbol[i], marker.line.width[i], marker.size[i])
    assert points[f"{A}_T-01"][0] == "diamond" and points[f"{A}_T-00"][0] == "circle"
    assert points[f"{B}_T-02"][1] == 2 and points[f"{A}_T-00"][1] == 0
    assert points[f"{B}_T-02"][2] > points[f"{A}_T-00"][2]  # bigger deviation, bigger marker
    assert {t.name for t in out.figure.data} >= {"L", "M"}  # coloured by tier_B, the shift shows as an M point
    assert out.data.filter(pl.col("trajectory_id") == f"{A}_T-01")["tier_B"].item() == "M"


def test_feature_by_tier_splits_values_by_the_features_dimension():
    fp = _clusters(n=2)
    fig = fv.feature_by_tier(fv.tier_frame(fp, PROFILES), "search_ratio")  # dimension A: p1 is L, p3 is M
    by_tier = {trace.name: sorted(trace.y) for trace in fig.data}
    assert by_tier["L"] == sorted(fp.filter(pl.col("profile_id") == A)["search_ratio"].to_list())
    assert by_tier["M"] == sorted(fp.filter(pl.col("profile_id") == B)["search_ratio"].to_list())
    assert by_tier["R"] == [] and "AUC 1.00" in fig.layout.title.text  # M > L expected, and it holds


def test_perturbation_auc_scores_deviation_of_perturbed_vs_normal():
    fp = _fp([(A, f"T-0{i}", {}) for i in range(4)])
    frame = fv.tier_frame(fp, PROFILES, [{"trajectory_id": f"{A}_T-03", "dimension": "A", "to_tier": "M"}])
    deviation = pl.DataFrame({"trajectory_id": fp["trajectory_id"], "deviation": [0.1, 0.2, 0.3, 0.9],
                              "task_adjusted_deviation": [0.5, 0.2, 0.3, 0.1],
                              "flagged": [False, False, False, True]})
    out = {r["score"]: r for r in fv.perturbation_auc(frame, deviation).iter_rows(named=True)}
    assert out["deviation"]["auc"] == 1.0 and out["task_adjusted_deviation"]["auc"] == 0.0
    assert out["deviation"]["perturbed"] == 1 and out["deviation"]["normal"] == 3
    assert out["deviation"]["flagged_perturbed"] == 1.0 and out["deviation"]["flagged_normal"] == 0.0


def test_compare_personas_difference_is_a_minus_b():
    fp = _fp([(A, "T-01", {"files_created": 4, "search_ratio": 0.2}), (A, "T-02", {"files_created": 6}),
              (B, "T-01", {"files_created": 1, "search_ratio": 0.5}), (B, "T-02", {"files_created": 1})])
    out = fv.compare_personas(fp, A, B)
    rows = {r["feature"]: r for r in out.data.iter_rows(named=True)}
    assert out.data["feature"].to_list() == list(FEATURES)
    assert rows["files_created"][f"mean_{A}"] == 5.0 and rows["files_created"][f"mean_{B}"] == 1.0
    assert rows["files_created"]["difference"] == 4.0 and rows["search_ratio"]["difference"] == -0.15
    std = float(np.std([4, 6, 1, 1], ddof=1))
    assert rows["files_created"]["standardised"] == pytest.approx(4.0 / std, abs=1e-3)
    assert rows["dirs_created"]["difference"] == 0.0 and rows["dirs_created"]["standardised"] is None
    bars = dict(zip(out.figure.data[0].y, out.figure.data[0].x, strict=True))
    assert bars["B · files_created"] > 0 > bars["A · search_ratio"]


def test_compare_personas_names_a_missing_persona():
    with pytest.raises(KeyError, match="p2_thorough_reviser"):
        fv.compare_personas(_fp([(A, "T-01", {})]), A, "p2_thorough_reviser")
