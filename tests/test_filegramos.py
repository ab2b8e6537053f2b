"""FileGramOS: engram encoding, episodes, calibration, drift, consolidation and retrieval."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

from filegram_kit.behaviour.fingerprint import FEATURES
from filegram_kit.behaviour.session_drift import drift_frame, unparsed_judgements
from filegram_kit.llm import get_backend
from filegram_kit.llm.algorithms.narrate import narrate, parse_line
from filegram_kit.llm.tasks import ParseError, parse_narrative
from filegram_kit.memory import get_memory
from filegram_kit.memory.filegramos import target_dimensions
from filegram_kit.memory.filegramos.calibration import (
    Calibration,
    dimension_features,
    fit_calibration,
    load_calibration,
)
from filegram_kit.memory.filegramos.episodes import episodes, normalise_spans
from filegram_kit.memory.filegramos.semantic import chunk_text, naming_conventions
from filegram_kit.traces.frames import events_frame
from tests.builders import browse, delete, edit, make, mkdir, read, search, write

BACKEND = get_backend("offline")
PROSE = ("The quarterly budget review covers revenue, staffing and the vendor contracts. " * 12).strip()


def session(root, task, extra=()):
    """A realistic small session: look around, read, write a report, refine it."""
    specs = [browse(), read("notes/plan.md"), read("notes/budget.md"), search("revenue"), read("notes/plan.md", 2),
             mkdir(1, "out"), write(f"out/{task.lower()}_report.md", f"# Report {task}\n\n{PROSE}\n"),
             edit(f"out/{task.lower()}_report.md", 2, 1), *extra]
    return make(root, f"p1_methodical_{task}", specs)


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    root = tmp_path_factory.mktemp("fgos")
    trajs = [session(root, f"T-0{i}") for i in range(1, 6)]
    trajs.append(session(root, "T-06", [write("out/data.csv", "a,b\n1,2\n"), delete("out/old.md"),
                                        write("out/chart.png", length=900)]))
    return get_memory("filegramos").ingest(trajs, backend=BACKEND)


# -- Stage 1 ---------------------------------------------------------------------------------------------


def test_naming_conventions_by_hand():
    shares = naming_conventions(["2024-01-05_notes.md", "draft-v2.md", "Report Final.docx", "01_intro.md"])
    assert shares["date_prefix"] == 0.25 and shares["numeric_prefix"] == 0.25
    assert shares["underscores"] == 0.5 and shares["hyphens"] == 0.5 and shares["spaces"] == 0.25
    assert shares["version_marker"] == 0.5  # v2, Final
    assert shares["mean_length"] == round((16 + 8 + 12 + 8) / 4, 1)


def test_chunks_are_at_most_800_chars_and_cover_the_text():
    text = "\n".join(f"line {i} " + "x" * 60 for i in range(60))
    pieces = chunk_text(text)
    assert all(len(p) <= 800 for p in pieces) and len(pieces) >= len(text) // 800
    assert "".join(p.replace("\n", "") for p in pieces) == text.replace("\n", "")


def test_episode_rules():
    lines = ["read a"] * 4 + ["create b (10 chars)"] + ["edit b (+1 -0)"] * 3
    assert normalise_spans([(0, 2)], lines[:2]) == [(0, 2)]  # < 3 actions: one episode
    assert normalise_spans([(0, 4), (4, 5), (5, 8)], lines) == [(0, 5), (5, 8)]  # short segment joins the previous
    assert normalise_spans([(0, 1), (1, 8)], lines) == [(0, 4), (4, 8)]  # short first joins the next, then splits
    many = [(i, i + 3) for i in range(0, 24, 3)]
    capped = normalise_spans(many, ["read a"] * 24)
    assert len(capped) == 5 and capped[0][0] == 0 and capped[-1][1] == 24
    assert all(a < b for a, b in capped) and all(capped[k][1] == capped[k + 1][0] for k in range(4))
    assert normalise_spans([(0, 8)], lines) == [(0, 4), (4, 8)]  # one long episode splits where production starts


def test_a_failed_segmentation_gives_one_narrated_episode(tmp_path):
    class Failing:
        def segment_episodes(self, items):
            raise ParseError("segment_episodes", "no JSON", "sorry")

        def narrate_episode(self, items):
            return BACKEND.narrate_episode(items)

    traj = session(tmp_path, "T-01")
    eps, failures = episodes(events_frame(traj), "T-01", Failing())
    assert failures == 1
    assert len(eps) == 1 and len(eps[0].event_ids) == 8 and eps[0].title


def test_narration_counts_the_episode_lines():
    told = narrate(["read docs/a.md", "read docs/b.md", "read docs/a.md", "create out/s.md (900 chars)"])
    assert told["title"] == "Reading in docs/"
    assert "read 2 files (docs/a.md, docs/b.md, 3 actions in all)" in told["narrative"]
    assert told["summary"].startswith("4 actions (3 read, 1 create)")
    assert 3 <= len(re.findall(r"\.(?:\s|$)", told["narrative"])) <= 8
    assert parse_line("mystery line") == ("other", "mystery line", "")


def test_llm_narratives_are_parsed_and_checked():
    told = parse_narrative('```json\n{"title": "Reading", "narrative": "They read. Then wrote.", "summary": ""}\n```')
    assert told.title == "Reading" and told.summary == "They read."
    with pytest.raises(ParseError):
        parse_narrative('{"title": "", "narrative": "x"}')


def test_engrams_hold_the_three_units(memory):
    assert [e.session for e in memory.engrams_] == ["T-01", "T-02", "T-03", "T-04", "T-05", "T-06"]
    last = memory.engrams_[-1]
    assert last.procedural["files_created"] == 3 and last.procedural["total_deletes"] == 1
    assert last.semantic.file_types == {"csv": 1, "md": 1, "png": 1}
    assert last.semantic.language == "en" and last.semantic.style["tone"]
    assert 2 <= len(last.episodes) <= 5
    ids = [i for ep in last.episodes for i in ep.event_ids]
    assert ids == sorted(ids, key=lambda i: int(i.rsplit("-", 1)[1]))  # episodes tile the timeline in order


# -- Stage 2 ---------------------------------------------------------------------------------------------


def planted(n_per_tier: int = 6, seed: int = 0) -> tuple[pl.DataFrame, dict]:
    """Sessions of synthetic users whose every feature rises with the tier of its dimension (L high)."""
    rng = np.random.default_rng(seed)
    rows, tiers = [], {}
    for u in range(3 * n_per_tier):
        pid = f"u{u}"
        tiers[pid] = {d: "LMR"[(u + k) % 3] for k, d in enumerate("ABCDEF")}
        for s in range(4):
            row = {"trajectory_id": f"{pid}_T-{s:02d}", "profile_id": pid, "task_id": f"T-{s:02d}"}
            for d in "ABCDEF":
                level = {"L": 2.0, "M": 1.0, "R": 0.0}[tiers[pid][d]]
                for f in dimension_features(d):
                    scale = 0.3 if f.endswith("ratio") else 10.0
                    row[f] = max(0.0, scale * (level + rng.normal(0, 0.2)))
            rows.append(row)
    return pl.DataFrame(rows), tiers


def test_calibration_recovers_planted_tiers_and_round_trips():
    train, tiers = planted()
    calibration = fit_calibration(train, tiers)
    test, truth = planted(seed=1)
    means = test.group_by("profile_id").agg(pl.col(list(FEATURES)).mean())
    hits = [r.tier == truth[row["profile_id"]][r.dimension]
            for row in means.iter_rows(named=True) for r in calibration.read(row)]
    assert sum(hits) / len(hits) >= 0.95
    again = Calibration.from_json(calibration.to_json())
    row = means.row(0, named=True)
    assert [r.probabilities for r in again.read(row)] == [r.probabilities for r in calibration.read(row)]
    with pytest.raises(ValueError, match="no model for dimension"):
        Calibration.from_json({"models": {}}, "bad.json")


def test_calibration_refuses_users_without_tiers_or_a_missing_tier():
    train, tiers = planted(n_per_tier=2)
    with pytest.raises(ValueError, match="no tiers for profile"):
        fit_calibration(train, {k: v for k, v in tiers.items() if k != "u0"})
    only_l = {k: {d: "L" for d in "ABCDEF"} for k in tiers}
    with pytest.raises(ValueError, match="no calibration persona of tier"):
        fit_calibration(train, only_l)


def test_packaged_calibration_matches_the_engine_and_never_saw_the_paper_personas():
    from filegram_kit.engine.corpus import engine_fingerprint
    from filegram_kit.traces.profiles import load_profiles, sample_profiles

    calibration = load_calibration()
    assert calibration.meta["engine"] == engine_fingerprint()[:16], "engine changed: run `filegram calibrate`"
    drawn = sample_profiles(calibration.meta["personas"], seed=calibration.meta["seed"])
    assert not {p.vector for p in drawn} & {p.vector for p in load_profiles().values()}


def test_drift_judges_flagged_sessions_only_with_the_same_type_shift():
    rows = [{"trajectory_id": f"u_T-{i:02d}", "profile_id": "u", "task_id": f"T-{i:02d}",
             **dict.fromkeys(FEATURES, 1.0), "search_ratio": 0.1 + 0.01 * (i % 3)} for i in range(1, 13)]
    rows[2].update({"total_edits": 40.0, "dirs_created": 30.0, "image_files": 9.0})
    calls = []

    class Recording:
        def judge_anomaly(self, deviation, task_shift=None):
            calls.append((deviation, task_shift))
            return BACKEND.judge_anomaly(deviation, task_shift)

    out = drift_frame(pl.DataFrame(rows), backend=Recording())
    flagged = out.filter(pl.col("flagged"))
    assert flagged["trajectory_id"].to_list() == ["u_T-03"] and len(calls) == 1
    assert set(flagged["shifted_features"][0]) == {"total_edits", "dirs_created", "image_files"}
    deviation, shift = calls[0]
    assert deviation["total_edits"] > 2 and set(shift) == set(FEATURES)  # T-04 and T-08 are "create" tasks too
    assert shift["total_edits"] < 0  # the other create sessions sit below this user's mean
    assert flagged["judge"][0] in ("variation", "outlier", "uncertain")
    assert out.filter(~pl.col("flagged"))["judge"].null_count() == 11
    assert out["task_type"][0] == "understand"  # T-01's Table 10 type
    assert drift_frame(pl.DataFrame(rows[:2]), judge=False)["flagged"].to_list() == [False, False]


def test_an_unparseable_judge_reply_labels_its_session_uncertain_and_the_ingest_goes_on(tmp_path):
    class ProseJudge(type(BACKEND)):  # a small local model that answers the anomaly judge in prose
        def judge_anomaly(self, deviation, task_shift=None):
            raise ParseError("judge_anomaly", "no JSON", "This session looks a bit different.")

    trajs = [session(tmp_path, f"T-0{i}") for i in range(1, 6)]
    trajs.append(session(tmp_path, "T-06", [write("out/data.csv", "a,b\n1,2\n"), delete("out/old.md"),
                                            write("out/chart.png", length=900)]))
    judged = get_memory("filegramos").ingest(trajs, backend=BACKEND)
    prose = get_memory("filegramos").ingest(trajs, backend=ProseJudge())
    flagged = prose.drift_.filter(pl.col("flagged"))
    assert flagged.height >= 1 and flagged["judge"].to_list() == ["uncertain"] * flagged.height
    assert prose.parse_failures_ - judged.parse_failures_ == flagged.height
    assert "did not parse" in prose.retrieve("", backend=BACKEND).text
    assert unparsed_judgements(judged.drift_) == 0


def test_channels(memory):
    procedural = memory.channels_["procedural"]
    assert procedural.sessions == 6 and [r.dimension for r in procedural.readings] == list("ABCDEF")
    stats = dict(zip(procedural.stats["feature"], procedural.stats["max"], strict=True))
    assert stats["files_created"] == 3 and stats["total_deletes"] == 1
    assert "never moved a file" in procedural.absences and "never deleted a file" not in procedural.absences
    semantic = memory.channels_["semantic"]
    assert semantic.file_types["md"] == 6 and len(semantic.chunks) <= 50
    assert semantic.embeddings.shape[0] == len(semantic.chunks)
    episodic = memory.channels_["episodic"]
    assert len(episodic.episode_clusters) == len(episodic.episodes) == episodic.embeddings.shape[0]
    assert set(episodic.session_clusters) == {e.session for e in memory.engrams_}
    assert max(episodic.session_clusters.values()) <= 2


# -- Stage 3 ---------------------------------------------------------------------------------------------


def test_queries_pick_their_dimensions():
    assert target_dimensions("How deeply does the user nest folders?") == ["C"]
    assert target_dimensions("Does the user delete old drafts or keep backups?") == ["E"]
    assert target_dimensions("Does this user make charts or tables?") == ["F"]
    assert target_dimensions("What is the capital of France?") == []


def test_blocks_come_in_fixed_order_and_channels_switch_off(memory):
    text = memory.retrieve("How does the user organise folders?", backend=BACKEND).text
    heads = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert heads == ["Procedural Patterns", "Semantic Content", "Episodic Consistency"]
    assert "C Organization Preference" in text and "<- asked about" in text
    assert "dirs_created (C)" in text and "search_ratio (A)" not in text  # stats of the asked dimension only
    no_semantic = memory.with_knobs(channels=("procedural", "episodic"))
    assert no_semantic.engrams_ is memory.engrams_  # reused, not re-ingested
    heads = re.findall(r"^## (.+)$", no_semantic.retrieve("folders", backend=BACKEND).text, flags=re.MULTILINE)
    assert heads == ["Procedural Patterns", "Episodic Consistency"]
    assert memory.with_knobs(channels=()).retrieve("folders", backend=BACKEND).text == ""


def _excerpts(text: str) -> list[str]:
    block = text.split("Most relevant excerpts", 1)[1].split("\n## ", 1)[0]
    return [line.split("] ", 1)[1] for line in block.splitlines()[1:] if line.startswith("- [")]


def test_truncation_knobs(memory):
    short = memory.with_knobs(display_chars=60, preview_chars=40).retrieve("budget report", backend=BACKEND)
    long = memory.with_knobs(display_chars=1000).retrieve("budget report", backend=BACKEND)
    assert all(len(x) <= 60 for x in _excerpts(short.text)) and max(map(len, _excerpts(long.text))) > 60
    previews = [line for line in short.text.splitlines() if line.startswith("- [T-0") and "chars): " in line]
    assert previews and all(len(line.split("chars): ", 1)[1]) <= 40 for line in previews)
    bare = memory.with_knobs(content_previews=False).retrieve("budget report", backend=BACKEND).text
    assert "chars): " not in bare and "(" in bare
    two = memory.with_knobs(files_per_task=1).retrieve("budget", backend=BACKEND).text
    assert sum(line.startswith("- [T-06]") and "chars)" in line for line in two.splitlines()) == 1
    chains = memory.with_knobs(edit_chains=True).retrieve("budget", backend=BACKEND).text
    assert "  edit out/t-01_report.md (+2 -1)" in chains and "  edit out/" not in bare


def test_context_quotes_real_events_and_is_smaller_than_the_memory(memory):
    ctx = memory.retrieve("What does the user write about the budget?", backend=BACKEND)
    known = {i for e in memory.engrams_ for ep in e.episodes for i in ep.event_ids} | \
            {p.event_id for e in memory.engrams_ for p in e.semantic.previews}
    assert ctx.sources and set(ctx.sources) <= known
    assert "p1_methodical" not in ctx.text and "methodical" not in memory.memory_text()  # no persona names
    assert 0 < ctx.tokens < memory.memory_tokens()


def test_same_input_same_memory(tmp_path):
    trajs = [session(tmp_path, f"T-0{i}") for i in range(1, 5)]
    a = get_memory("filegramos").ingest(trajs, backend=BACKEND).memory_text()
    b = get_memory("filegramos").ingest(trajs, backend=get_backend("offline")).memory_text()
    assert a == b


def test_cli_drift_and_calibrate(tmp_path, capsys):
    from filegram_kit.cli import main
    from filegram_kit.traces.load import save_trajectories

    trajs = [session(tmp_path, f"T-0{i}") for i in range(1, 5)]
    save_trajectories(trajs, tmp_path / "corpus", progress=False)
    assert main(["drift", str(tmp_path / "corpus"), "--format", "csv"]) == 0
    frame = pl.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    assert frame["trajectory_id"].to_list() == [t.id for t in trajs] and "shifted_features" in frame.columns
    out = tmp_path / "calibration.json"
    assert main(["calibrate", "--personas", "3", "--corpus", str(tmp_path / "cal"), "--tasks", "T-01", "T-05",
                 "T-09", "--out", str(out)]) == 0
    calibration = load_calibration(out)
    assert calibration.meta["personas"] == 3 and calibration.meta["sessions"] == 3 * 3
    assert len(calibration.read(dict.fromkeys(FEATURES, 0.0))) == 6


def test_a_reader_who_never_writes_still_gets_a_memory(tmp_path):
    trajs = [make(tmp_path, f"p2_thorough_reviser_T-0{i}", [browse(), read("a.md"), read("b.md"), search("x")])
             for i in range(1, 4)]
    memory = get_memory("filegramos").ingest(trajs, backend=BACKEND)
    semantic = memory.channels_["semantic"]
    assert semantic.chunks == () and semantic.languages == {} and semantic.file_types == {}
    assert "never produced an image" in memory.channels_["procedural"].absences
    for query in ("", "How does the user organise folders?"):
        text = memory.retrieve(query, backend=BACKEND).text
        assert text.startswith("## Procedural Patterns") and "Most relevant excerpts" not in text


def scripted_backend():
    """A PromptBackend whose 'model' answers each rendered prompt with a fixed, well-formed reply."""
    import hashlib

    from filegram_kit.llm.prompting import Completion, PromptBackend

    class Scripted(PromptBackend):
        name = "scripted"

        def _complete(self, prompt, *, json_mode, max_tokens):
            if "Split them into" in prompt:
                return Completion('{"boundaries": [4]}', 10, 5)
            if "Give the episode a short title" in prompt:
                return Completion('{"title": "Budget work", "narrative": "They read and wrote.", "summary": "x"}')
            if "writing style" in prompt:
                return Completion('{"language": "en", "tone": "formal", "structure": "moderate", '
                                  '"detail": "balanced", "summary": "Formal prose."}')
            if "deviates from their usual" in prompt:
                return Completion('{"label": "outlier", "rationale": "many features moved"}')
            return Completion("A short summary.")

        def _embed(self, texts, *, input_type):
            rows = [np.frombuffer(hashlib.sha256(t.encode()).digest(), dtype=np.uint8)[:16].astype(float) + 1
                    for t in texts]
            return [list(r / np.linalg.norm(r)) for r in rows], 0

    return Scripted()


def test_the_same_code_runs_through_a_prompted_model(tmp_path):
    backend = scripted_backend()
    trajs = [session(tmp_path, f"T-0{i}") for i in range(1, 5)]
    memory = get_memory("filegramos").ingest(trajs, backend=backend)
    episodes_ = memory.channels_["episodic"].episodes
    assert {ep.title for ep in episodes_} == {"Budget work"} and len(episodes_) == 2 * len(trajs)  # split at 4
    assert memory.channels_["semantic"].style["tone"]["value"] == "formal"
    assert memory.channels_["semantic"].style_summary == "A short summary."
    assert backend.usage.counts["ingest"]["calls"] > 0 and "query" not in backend.usage.counts
    ctx = memory.retrieve("How does the user edit?", backend=backend)
    assert "Budget work" in ctx.text and backend.usage.counts["query"]["calls"] == 1


def test_cached_engrams_give_the_same_memory_under_each_memorys_labels(tmp_path):
    from dataclasses import replace

    from filegram_kit.memory.filegramos import engram

    trajs = [session(tmp_path, f"T-0{i}") for i in range(1, 4)]
    engram._cache.clear()
    fresh = get_memory("filegramos").ingest(trajs, backend=BACKEND).memory_text()
    assert len(engram._cache) == 3
    assert get_memory("filegramos").ingest(trajs, backend=BACKEND).memory_text() == fresh
    twin = replace(trajs[0], id="other")  # the same task twice: labels T-01 and T-01 #2
    memory = get_memory("filegramos").ingest([trajs[0], twin], backend=BACKEND)
    assert [e.session for e in memory.engrams_] == ["T-01", "T-01 #2"]
    assert {c.session for c in memory.engrams_[1].semantic.chunks} == {"T-01 #2"}
    assert {ep.session for ep in memory.engrams_[1].episodes} == {"T-01 #2"}
    assert memory.engrams_[0].semantic.chunks[0].session == "T-01"  # the cached original is untouched


@pytest.mark.parametrize("method", ["filegramos", "eager_summary"])
def test_a_session_read_through_other_media_is_not_served_the_first_settings_memory(tmp_path, method):
    """The text and the multimodal setting of a corpus hold the same events; only the media differ (the
    multimodal one reads each file's rendered copies). Keyed by the events alone, a process that encoded one
    setting served its Engrams (and session stages) to the other: the quick reproduce's FileGramOS answers
    changed on 3 of 15 File Grounding items. A memory must not depend on what its process met before."""
    from dataclasses import replace

    from filegram_kit.memory import stages
    from filegram_kit.memory.filegramos import engram

    text = [session(tmp_path, f"T-0{i}") for i in range(1, 3)]
    entries = {ref: {**entry, "rendered": [{"format": "pdf"}]} for ref, entry in text[0].media.entries.items()}
    other = [replace(text[0], media=text[0].media.view(entries, transform=str.upper)), text[1]]

    def memory_text(trajs):
        return get_memory(method).ingest(trajs, backend=BACKEND).memory_text()

    engram._cache.clear()
    stages._memo.clear()
    alone = memory_text(other)
    engram._cache.clear()
    stages._memo.clear()
    first = memory_text(text)
    assert memory_text(other) == alone != first


def test_kmeans_recovers_separated_groups_and_is_deterministic():
    import numpy as np

    from filegram_kit.memory.filegramos.kmeans import kmeans

    rng = np.random.default_rng(7)
    truth = np.repeat([0, 1, 2], [6, 4, 3])
    points = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])[truth] + rng.normal(0, 0.3, (13, 2))
    labels = kmeans(points, 3, seed=1)
    # the same partition up to the names of the clusters
    assert len(set(zip(labels.tolist(), truth.tolist(), strict=True))) == 3
    assert kmeans(points, 3, seed=1).tolist() == labels.tolist()
    assert kmeans(points, 1).tolist() == [0] * 13
    with pytest.raises(ValueError, match="k"):
        kmeans(points, 14)
