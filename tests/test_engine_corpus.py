"""The corpus builder and the offline agent: determinism, resume, perturbations and behavioral signal."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from filegram_kit.engine import CorpusError, build_corpus, count_events, generate_trajectory, table5
from filegram_kit.engine.charts import bar_chart_png
from filegram_kit.engine.policy import NEUTRAL, make_policy
from filegram_kit.traces.load import clean, load_trajectories
from filegram_kit.traces.profiles import Perturbation, get_profile, load_profiles, perturbation_schedule
from filegram_kit.traces.schema import RETAINED_EVENT_TYPES, Tier
from filegram_kit.traces.tasks import get_task

PROFILES, TASKS = ["p1", "p3"], ["T-03", "T-09", "T-12"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus")
    report = build_corpus(out, profiles=PROFILES, tasks=TASKS, workers=2, progress=False)
    return out, report


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "signal").rglob("*"))
            if p.is_file()}


def test_build_writes_the_release_layout_and_manifests(built):
    out, report = built
    assert (report.built, report.skipped) == (6, 0)
    ids = sorted(p.name for p in (out / "signal").iterdir())
    assert ids == sorted(f"{get_profile(p).id}_{t}" for p in PROFILES for t in TASKS)
    for name in ids:
        assert {"events.json", "summary.json", "media"} <= {p.name for p in (out / "signal" / name).iterdir()}
    personas = load_profiles(out / "profiles.json")  # ground truth travels with the corpus
    assert sorted(personas) == sorted(get_profile(p).id for p in PROFILES)
    assert personas[get_profile("p3").id].tiers == get_profile("p3").tiers
    manifest = json.loads((out / "corpus.json").read_text())
    assert manifest["trajectories"] == 6 and manifest["seed"] == 0
    expected = [p for p in perturbation_schedule([get_profile(p) for p in PROFILES]) if p.task_id in TASKS]
    assert [r["trajectory_id"] for r in json.loads((out / "perturbations.json").read_text())] == [
        p.trajectory_id for p in expected]


def test_generated_trajectories_load_validate_and_clean(built):
    out, _ = built
    trajs = load_trajectories(out, check_media=True)
    assert len(trajs) == 6 and not trajs.quarantine
    cleaned, report = clean(trajs)
    assert 0.6 < report.metadata_share < 0.85
    for traj in cleaned:
        assert {e.event_type for e in traj.events} <= set(RETAINED_EVENT_TYPES)
        assert all("sandbox" not in json.dumps(e.fields) for e in traj.events)
        writes = [e for e in traj.events if e.event_type == "file_write" and e.get("media_ref")]
        for event in writes:  # the blob is the content that was written
            assert len(traj.content(event["media_ref"])) == event["content_length"]


def test_summary_agrees_with_the_events(built):
    out, _ = built
    for directory in (out / "signal").iterdir():
        events = json.loads((directory / "events.json").read_text())
        summary = json.loads((directory / "summary.json").read_text())
        counts = Counter(e["event_type"] for e in events)
        assert summary["total_events"] == len(events)
        assert summary["total_tool_calls"] == counts["tool_call"] == len(summary["tool_sequence"])
        assert summary["total_iterations"] == counts["iteration_start"] == counts["iteration_end"]
        assert summary["context_switch_count"] == counts["context_switch"]
        assert summary["error_count"] == counts["error_encounter"]
        stamps = [e["timestamp"] for e in events]
        assert stamps == sorted(stamps)  # one simulated clock, never running backwards
        assert events[0]["event_type"] == "session_start" and events[-1]["event_type"] == "session_end"


def test_same_seed_same_bytes_whatever_the_worker_count(built, tmp_path):
    out, _ = built
    build_corpus(tmp_path, profiles=PROFILES, tasks=TASKS, workers=1, progress=False)
    assert snapshot(tmp_path) == snapshot(out)


def test_another_seed_gives_other_runs(tmp_path):
    profile, task = get_profile("p1"), get_task("T-09")
    a = generate_trajectory(profile, task, tmp_path / "a", seed=0, workspace_cache=tmp_path / "ws")
    b = generate_trajectory(profile, task, tmp_path / "b", seed=1, workspace_cache=tmp_path / "ws")
    assert (a / "events.json").read_bytes() != (b / "events.json").read_bytes()


def test_resume_redoes_only_missing_and_half_written_trajectories(built, tmp_path):
    out, _ = built
    build_corpus(tmp_path, profiles=PROFILES, tasks=TASKS, workers=1, progress=False)
    before = snapshot(tmp_path)
    signal = tmp_path / "signal"
    victim = sorted(signal.iterdir())[0]
    kept = sorted(signal.iterdir())[1]
    mtime = (kept / "events.json").stat().st_mtime_ns
    import shutil

    shutil.rmtree(victim)
    half = signal / f".{victim.name}.interrupted"
    (half / "media").mkdir(parents=True)
    (half / "events.json").write_text("[{\"event_type\": ")  # what a killed run leaves behind
    report = build_corpus(tmp_path, profiles=PROFILES, tasks=TASKS, workers=1, progress=False)
    assert (report.built, report.skipped) == (1, 5)
    assert not half.exists()
    assert (kept / "events.json").stat().st_mtime_ns == mtime
    assert snapshot(tmp_path) == before


def test_a_corpus_folder_of_another_seed_is_refused(built):
    out, _ = built
    with pytest.raises(CorpusError, match="seed=0"):
        build_corpus(out, seed=3, profiles=PROFILES, tasks=TASKS, workers=1, progress=False)


def test_table5_scales_counts_to_640(built):
    out, _ = built
    counts, n = count_events(out)
    frame = table5(counts, n)
    row = frame.filter(frame["event_type"] == "file_read").row(0, named=True)
    assert row["ours"] == counts["file_read"] and row["ours_per_640"] == pytest.approx(counts["file_read"] * 640 / 6,
                                                                                       abs=0.05)


# -- behavior ----------------------------------------------------------------------------------
def test_perturbed_dimension_is_always_expressed_at_the_shifted_tier():
    profile, task = get_profile("p1"), get_task("T-12")
    shift = Perturbation(profile.id, task.id, "D", Tier.L, Tier.M)
    for seed in range(20):
        policy = make_policy(profile, task, perturbation=shift, rng=np.random.default_rng(seed))
        assert policy.tiers["D"] == Tier.M and policy.shown["D"] == Tier.M
    with pytest.raises(ValueError, match="not R"):
        make_policy(profile, task, perturbation=Perturbation(profile.id, task.id, "D", Tier.R, Tier.M),
                    rng=np.random.default_rng(0))


def test_inactive_dimensions_mostly_fall_back_to_neutral_behavior():
    profile, task = get_profile("p1"), get_task("T-03")  # T-03 activates B fully, C and E partially; A not at all
    shown = [make_policy(profile, task, rng=np.random.default_rng(s)).shown for s in range(400)]
    persona_a = np.mean([s["D"] == profile.tiers["D"] for s in shown])
    assert profile.tiers["D"] != NEUTRAL["D"] and persona_a < 0.25
    assert np.mean([s["B"] == profile.tiers["B"] for s in shown]) > 0.75
    assert 0.3 < np.mean([s["C"] == profile.tiers["C"] for s in shown]) < 0.7


def _counts(tmp_path, profile_id: str, task_ids: list[str], event_type: str) -> list[int]:
    out = []
    for task_id in task_ids:
        path = generate_trajectory(get_profile(profile_id), get_task(task_id), tmp_path / "signal",
                                   workspace_cache=tmp_path / "ws")
        events = json.loads((path / "events.json").read_text())
        out.append(sum(e["event_type"] == event_type for e in events))
    return out


def _personas(dim: str, tier: str) -> list[str]:
    return [p.id for p in load_profiles().values() if p.tiers[dim].value == tier]


def test_search_first_readers_search_more(tmp_path):
    tasks = ["T-01", "T-06", "T-16", "T-17"]  # A fully activated
    searchers = [n for p in _personas("A", "M")[:3] for n in _counts(tmp_path, p, tasks, "file_search")]
    deep = [n for p in _personas("A", "L")[:3] for n in _counts(tmp_path, p, tasks, "file_search")]
    assert np.mean(searchers) > np.mean(deep) + 0.5


def test_iteration_tier_shows_on_iterate_tasks_and_fades_elsewhere(tmp_path):
    incremental, rewriters = _personas("D", "L")[:3], _personas("D", "R")[:3]
    on = ["T-11", "T-12", "T-13"]  # D fully activated
    off = ["T-01", "T-06", "T-22"]  # D not activated
    gap_on = np.mean([n for p in incremental for n in _counts(tmp_path, p, on, "file_edit")]) - np.mean(
        [n for p in rewriters for n in _counts(tmp_path, p, on, "file_edit")])
    gap_off = np.mean([n for p in incremental for n in _counts(tmp_path, p, off, "file_edit")]) - np.mean(
        [n for p in rewriters for n in _counts(tmp_path, p, off, "file_edit")])
    assert gap_on > 2 and abs(gap_off) < gap_on / 3


def test_charts_are_real_png_images():
    data = bar_chart_png("Revenue", [("q1", 3.0), ("q2", 5.5), ("q3", -1.0)])
    image = Image.open(io.BytesIO(data))
    image.verify()
    assert image.format == "PNG" and image.size == (480, 300)
    assert data == bar_chart_png("Revenue", [("q1", 3.0), ("q2", 5.5), ("q3", -1.0)])


def test_cli_builds_a_corpus_and_compares_it_with_table5(tmp_path, capsys):
    from filegram_kit.cli import main

    assert main(["corpus", "--out", str(tmp_path), "--profiles", "p2", "--tasks", "T-09", "--workers", "1"]) == 0
    assert "built 1 trajectories" in capsys.readouterr().out
    assert main(["corpus", "--stats", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    counts, _ = count_events(tmp_path)
    line = next(row for row in text.splitlines() if row.startswith("file_read "))
    assert int(line.split()[1]) == counts["file_read"]
    assert "retained types within +-25%" in text and "simulation-metadata share" in text
    assert main(["corpus", "--stats", str(tmp_path / "nothing")]) == 2
    assert main(["corpus"]) == 2


def test_the_agent_only_fails_where_it_means_to(tmp_path):
    """Every failed tool call is an injected slip (mistyped path, stale edit), never a tool the agent lacks."""
    failures, scripts = Counter(), 0
    for profile_id in ("p1", "p5", "p7", "p12"):
        for task_id in ("T-05", "T-26"):
            path = generate_trajectory(get_profile(profile_id), get_task(task_id), tmp_path / "signal",
                                       workspace_cache=tmp_path / "ws")
            events = json.loads((path / "events.json").read_text())
            calls = [e for e in events if e["event_type"] == "tool_call"]
            failures.update(e["error_type"] for e in calls if not e["success"])
            ran = [e for e in calls if e["tool_name"] == "bash" and "python3" in e["tool_parameters"]["command"]]
            scripts += len(ran)
            if ran:  # the organizing script really moved files: the root holds fewer entries at the end
                first, last = (json.loads((path / "media" / e["media_ref"]["path"]).read_text())
                               for e in events if e["event_type"] == "fs_snapshot")
                assert len([p for p in last if "/" not in p]) < len([p for p in first if "/" not in p])
    assert set(failures) <= {"file_not_found", "edit_mismatch"}
    assert scripts > 0


def test_links_in_written_documents_point_at_real_files(tmp_path):
    import posixpath
    import re

    links = 0
    for profile_id in _personas("F", "L")[:3]:
        for task_id in ("T-01", "T-06", "T-15"):
            path = generate_trajectory(get_profile(profile_id), get_task(task_id), tmp_path / "signal",
                                       workspace_cache=tmp_path / "ws")
            traj = load_trajectories(path)[0]
            snapshot = [e for e in traj.events if e.event_type == "fs_snapshot"][-1]
            tree = set(json.loads(traj.content(snapshot["media_ref"])))
            for event in traj.events:
                if event.event_type != "file_write" or not event.get("media_ref"):
                    continue
                rel = event["file_path"].split(f"{traj.id}/", 1)[1]
                for target in re.findall(r"\]\(([^)]+)\)", traj.content(event["media_ref"])):  # images and links
                    links += 1
                    assert posixpath.normpath(posixpath.join(posixpath.dirname(rel), target)) in tree
    assert links > 0


def test_building_more_into_a_folder_merges_its_manifests(tmp_path):
    build_corpus(tmp_path, profiles=["p1"], tasks=["T-09", "T-12"], workers=1, progress=False)
    build_corpus(tmp_path, profiles=["p2"], tasks=["T-12"], workers=1, progress=False)
    manifest = json.loads((tmp_path / "corpus.json").read_text())
    assert manifest["trajectories"] == 3 and manifest["tasks"] == ["T-09", "T-12"]
    assert [p.split("_")[0] for p in manifest["profiles"]] == ["p1", "p2"]
    assert len(load_profiles(tmp_path / "profiles.json")) == 2
    shifted = {r["trajectory_id"] for r in json.loads((tmp_path / "perturbations.json").read_text())}
    expected = {p.trajectory_id for p in perturbation_schedule([get_profile("p1"), get_profile("p2")])
                if p.task_id in ("T-09", "T-12") and not (p.profile_id.startswith("p2") and p.task_id == "T-09")}
    assert shifted == expected


def test_a_folder_built_by_another_engine_is_refused(tmp_path, monkeypatch):
    from filegram_kit.engine import corpus as engine_corpus

    build_corpus(tmp_path, profiles=["p1"], tasks=["T-09"], workers=1, progress=False)
    monkeypatch.setattr(engine_corpus, "engine_fingerprint", lambda: "0" * 64)
    with pytest.raises(CorpusError, match="engine"):
        build_corpus(tmp_path, profiles=["p1"], tasks=["T-12"], workers=1, progress=False)


def test_trajectories_without_a_manifest_are_not_mixed_in(tmp_path):
    (tmp_path / "signal" / "someone_T-01").mkdir(parents=True)
    (tmp_path / "signal" / "someone_T-01" / "events.json").write_text("[]")
    with pytest.raises(CorpusError, match="no corpus.json"):
        build_corpus(tmp_path, profiles=["p1"], tasks=["T-09"], workers=1, progress=False)


def test_cli_corpus_errors_are_one_clear_line(tmp_path, capsys):
    from filegram_kit.cli import main

    assert main(["corpus", "--out", str(tmp_path), "--profiles", "p99", "--tasks", "T-09"]) == 2
    assert capsys.readouterr().err.startswith("error: unknown profile 'p99'")
    assert main(["corpus", "--out", str(tmp_path), "--profiles", "p1", "--tasks", "T-09", "--seed", "1"]) == 0
    assert main(["corpus", "--out", str(tmp_path), "--profiles", "p1", "--tasks", "T-09"]) == 2
    assert "seed=1" in capsys.readouterr().err


def test_cli_builds_a_corpus_of_sampled_personas(tmp_path):
    from filegram_kit.cli import main
    from filegram_kit.traces.profiles import sample_profiles

    assert main(["corpus", "--out", str(tmp_path), "--sample", "2", "--seed", "4", "--tasks", "T-09"]) == 0
    assert sorted(load_profiles(tmp_path / "profiles.json")) == sorted(p.id for p in sample_profiles(2, seed=4))


def test_an_interrupted_build_leaves_whole_trajectories_only_and_resumes(tmp_path, monkeypatch):
    from filegram_kit.engine import agent as agent_module

    real_run, calls = agent_module.OfflineAgent.run, []

    def run_then_interrupt(self):
        calls.append(self.task.id)
        if len(calls) == 2:  # Ctrl-C in the middle of the second trajectory, after its sandbox had events
            self.recorder.session_start()
            raise KeyboardInterrupt
        return real_run(self)

    monkeypatch.setattr(agent_module.OfflineAgent, "run", run_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        build_corpus(tmp_path, profiles=["p1"], tasks=["T-09", "T-11", "T-12"], workers=1, progress=False)
    signal = tmp_path / "signal"
    assert [p.name for p in signal.iterdir()] == [f"{get_profile('p1').id}_T-09"]  # no half-written folder
    monkeypatch.setattr(agent_module.OfflineAgent, "run", real_run)
    report = build_corpus(tmp_path, profiles=["p1"], tasks=["T-09", "T-11", "T-12"], workers=1, progress=False)
    assert (report.built, report.skipped) == (2, 1)
    fresh = tmp_path / "fresh"
    build_corpus(fresh, profiles=["p1"], tasks=["T-09", "T-11", "T-12"], workers=1, progress=False)
    assert snapshot(tmp_path) == snapshot(fresh)


def test_finer_attributes_nudge_their_dimension_only_where_it_shows():
    from dataclasses import replace

    base = get_profile("p3")  # A = M, unlike the neutral reader (L): whether A shows is visible
    careful = replace(base, attributes={**base.attributes, "thoroughness": Tier.L, "version_strategy": Tier.L})
    hasty = replace(base, attributes={**base.attributes, "thoroughness": Tier.R, "version_strategy": Tier.R})
    task, seen = get_task("T-01"), set()  # A fully activated: shown 85% of the time
    for seed in range(40):
        a = make_policy(careful, task, rng=np.random.default_rng(seed))
        b = make_policy(hasty, task, rng=np.random.default_rng(seed))
        ratio = a["read_fraction"] / b["read_fraction"]
        seen.add(a.shown["A"] == base.tiers["A"])
        assert ratio == pytest.approx(1.15 / 0.8) if a.shown["A"] == base.tiers["A"] else ratio == 1.0
        assert (a.version, b.version) == (Tier.L, Tier.R)
    assert seen == {True, False}
