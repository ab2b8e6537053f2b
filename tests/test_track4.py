"""Track 4: File Grounding items, the GUI replay and its captioner, Visual Grounding items and their judge."""

from __future__ import annotations

import contextlib
import shutil
from collections import Counter
from pathlib import Path

import pytest

from filegram_kit.bench.audit import audit_items
from filegram_kit.bench.file_grounding import (
    SOURCES,
    build_file_grounding,
    output_evidence,
    output_options,
    source_shares,
)
from filegram_kit.bench.ground_truth import corpus_facts
from filegram_kit.bench.harness import evaluate
from filegram_kit.bench.inputs import TrajectoryStore
from filegram_kit.bench.track4 import by_setting, setting_corpus, setting_dir, track4_items
from filegram_kit.bench.visual_grounding import build_visual_setting, controls, rescore, visual_grounding_items
from filegram_kit.bench.visual_judge import judge_prediction, naming_style
from filegram_kit.engine import build_corpus
from filegram_kit.multimodal.parse import ocr
from filegram_kit.multimodal.screen_replay import (
    FPS,
    GuiStep,
    caption_video,
    draw_frame,
    gui_steps,
    record_replay,
    status_text,
    video_frames,
)
from filegram_kit.traces.load import load_trajectories

needs_ocr = pytest.mark.skipif(not shutil.which("tesseract"), reason="needs Debian's tesseract-ocr (`make setup`)")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("t4") / "corpus"
    build_corpus(out, profiles=["p1", "p3", "p7", "p12"], tasks=["T-01", "T-05", "T-12", "T-16"], workers=2,
                 progress=False)
    return out


# -- File Grounding --------------------------------------------------------------------------------------------
def test_file_grounding_keeps_only_questions_whose_evidence_is_in_the_outputs(corpus):
    items, report = build_file_grounding(corpus, seed=0)
    assert report.kept == len(items) and report.target == round(550 * 16 / 640)
    assert {i.track for i in items} == {"T4_multimodal"} and {i.sub_track for i in items} == {"file_grounding"}
    for item in items:
        meta = item.metadata
        assert meta["setting"] == "multimodal" and meta["source_sub_track"] in SOURCES
        assert meta.get("dimension") in (None, "B", "F")
        assert item.is_mcq and item.correct in "ABCDEF"[:len(item.choices)]
    assert len({i.question_id for i in items}) == len(items)
    assert build_file_grounding(corpus, seed=0)[0] == items  # same seed, same items
    assert build_file_grounding(corpus, seed=1)[0] != items


def test_file_grounding_passes_the_validity_audit(corpus):
    items, _ = build_file_grounding(corpus, seed=0)
    audit = audit_items(items, corpus_facts(corpus))
    assert audit.passed, audit.reasons()
    positions = Counter(i.answer_index for i in items if len(i.choices) == 4)
    assert max(positions.values()) - min(positions.values()) <= max(3, len(items) // 20)


def test_output_evidence_rule_and_shares():
    from filegram_kit.bench.drafts import Draft

    def draft(**meta):
        return Draft("attribute_recognition", "x", "semantic", "p1", ("t",), "q", ("a", "b"), metadata=meta)

    assert output_evidence(draft(dimension="B")) and output_evidence(draft(dimension="F"))
    assert not output_evidence(draft(dimension="C")) and not output_evidence(draft(dimension="E"))
    assert output_evidence(draft(attribute="tone")) and output_evidence(draft(attribute="language"))
    assert not output_evidence(draft(attribute="naming")) and output_evidence(draft())
    shares = source_shares(550)
    assert sum(shares.values()) == 550 and shares["trace_disentanglement"] > shares["shift_analysis"]


def test_options_naming_aspects_keep_only_those_the_outputs_show(corpus):
    """A question on which aspect shifted, with its key always an output aspect (B or F), must not offer reading
    or folders as distractors: the options alone would give the key away (61.5% choices-only once, chance 25)."""
    from filegram_kit.bench.drafts import Draft

    def draft(*dims):
        return Draft("shift_analysis", "shifted_dimension", "episodic", "p1", ("t",), "q", tuple(f"o{d}" for d in dims),
                     metadata={"dimension": dims[0]}, option_facts=tuple({"dimension": d} for d in dims))

    kept = output_options(draft("F", "A", "B", "C"))
    assert kept.options == ("oF", "oB") and kept.key_fact == "F" and kept.members == ("B", "F")
    assert output_options(draft("B", "A", "C", "E")) is None  # one output aspect left: no question
    same = draft("B", "B", "B")  # every option on the key's own aspect (a direction): untouched
    assert output_options(same) is same
    items, _ = build_file_grounding(corpus, seed=0)
    aspects = [[f["dimension"] for f in i.metadata["option_facts"]] for i in items
               if len({f.get("dimension") for f in i.metadata["option_facts"]}) > 1]
    assert all(set(a) <= {"B", "F"} for a in aspects)


# -- the replay ----------------------------------------------------------------------------------------------
@needs_ocr
def test_replay_frames_align_with_events_and_the_captioner_reads_them_back(corpus):
    traj = TrajectoryStore(corpus).get(sorted(p.name for p in (corpus / "signal").iterdir())[0])
    steps = gui_steps(traj)
    video, alignment = record_replay(steps)
    frames = video_frames(video)
    assert len(frames) == len(steps) == len(alignment)
    assert [a["event_index"] for a in alignment] == [s.event_index for s in steps]
    assert all(traj.events[a["event_index"]].event_type != "context_switch" for a in alignment)
    assert alignment[-1]["seconds"] == (len(steps) - 1) / FPS
    captions = caption_video(video)
    latin = [(c, s) for c, s in zip(captions, steps, strict=True) if status_text(s).isascii()]
    read = sum(c is not None and f"{c[0]} {c[1]}" == status_text(s) for c, s in latin)
    assert latin and read >= 0.9 * len(latin)
    assert all(c is None or c[0] == s.action for c, s in zip(captions, steps, strict=True))
    assert record_replay(steps)[0] == video  # the same steps give the same bytes


@needs_ocr
def test_the_captioner_reads_chinese_names_and_a_frame_shows_chinese_content():
    """Frames drawn in a Latin-only font showed Chinese as empty boxes, so a Chinese persona's file names were lost."""
    import io

    targets = ["报告.md", "reports/季度总结.md", "归档/2024 旧文件.txt", "notes/会议纪要_v2.md"]
    preview = "季度报告：收入增长了百分之十二\n成本下降"
    steps = [GuiStep(n, "WRITE", t, tuple(sorted({"reports", "归档", "notes", t})), preview)
             for n, t in enumerate(targets)]
    video, _ = record_replay(steps)
    captions = caption_video(video)
    assert sum(c == ("WRITE", t) for c, t in zip(captions, targets, strict=True)) >= 3, captions
    buf = io.BytesIO()
    draw_frame(steps[0]).crop((300, 0, 800, 60)).save(buf, "PNG")  # the preview pane's first lines
    assert "收入增长" in ocr([buf.getvalue()])[0]


def test_a_frame_shows_the_target_in_the_tree_and_the_action_in_the_status_bar(corpus):
    import numpy as np

    traj = TrajectoryStore(corpus).get(sorted(p.name for p in (corpus / "signal").iterdir())[1])
    step = next(s for s in gui_steps(traj) if s.action == "WRITE")
    image = np.asarray(draw_frame(step))
    assert step.target in step.tree
    assert (image[:, :300] == (200, 215, 240)).all(axis=2).any()  # the cursor row is highlighted
    assert image.shape == (450, 800, 3)


# -- Visual Grounding ----------------------------------------------------------------------------------------
def test_visual_grounding_items_predict_the_second_half(corpus):
    items = visual_grounding_items(corpus, seed=0)
    assert len(items) == round(100 * 16 / 640) and not any(i.is_mcq for i in items)
    for item in items:
        half, future = item.metadata["half"], item.metadata["future"]
        steps = gui_steps(TrajectoryStore(corpus).get(item.input_trajectories[0]))
        assert [s.action for s in steps[half:]] == future["sequence"]
        assert item.profile_id not in item.question and "Session" not in item.correct


def test_the_rubric_judge_separates_the_reference_from_wrong_and_echoed_answers(corpus):
    items = visual_grounding_items(corpus, seed=0)
    got = controls(items)
    assert got["reference"] >= 85 > got["wrong_reference"] + 10 and got["echo"] < 30
    future = {"sequence": ["WRITE", "RENAME"], "actions": ["RENAME", "WRITE"],
              "targets": ["out/2026-04-21_report_v2.md"], "created": ["2026-04-21_report_v2.md"]}
    good = judge_prediction("They will write and rename 2026-04-21_report_v2.md", future)
    assert good.score == 100.0 and good.likert == 5
    bad = judge_prediction("They will delete notes.txt", future)
    assert bad.operations == 0 and bad.targets == 0 and bad.score < 30
    assert naming_style("2026-04-21_report_v2.md") >= {"dated", "versioned", "snake", ".md"}


@needs_ocr
def test_the_visual_setting_built_by_workers_and_resumed_is_the_serial_build_byte_for_byte(corpus, tmp_path):
    items = [i for seed in (0, 1) for i in visual_grounding_items(corpus, seed=seed)]
    serial = build_visual_setting(corpus, tmp_path / "serial", items, workers=1)
    build_visual_setting(corpus, tmp_path / "parallel", items[:3], workers=2)  # a first part, then the rest
    parallel = build_visual_setting(corpus, tmp_path / "parallel", items, workers=2)
    sessions = len({i.input_trajectories[0] for i in items})
    assert serial["sessions"] == sessions > parallel["sessions"] > 0

    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
                if p.is_file()}

    assert files(tmp_path / "serial") == files(tmp_path / "parallel")
    assert not list((tmp_path / "parallel" / "signal").glob(".*"))  # no staging folder left behind


@needs_ocr
def test_the_visual_setting_is_what_the_screen_showed_and_methods_answer_from_it(corpus, tmp_path):
    items = visual_grounding_items(corpus, seed=0)[:2]
    report = build_visual_setting(corpus, tmp_path / "visual", items)
    assert report["sessions"] == 2 and report["exact"] >= 0.5 * report["frames"]
    trajs = load_trajectories(tmp_path / "visual", progress=False)
    assert len(trajs) == 2 and not trajs.quarantine
    for item in items:
        seen = trajs.by_id()[item.input_trajectories[0]]
        assert (tmp_path / "visual" / "signal" / seen.id / "media" / "replay.mp4").is_file()
        future = set(item.metadata["future"]["targets"]) - set(
            gui_steps(TrajectoryStore(corpus).get(seen.id))[item.metadata["half"] - 1].tree)
        shown = {str(e.fields.get("file_path", "")) for e in seen.events}
        assert not future & shown  # nothing of the second half leaks into what the memory gets
    rows = evaluate(items, tmp_path / "visual", ["no_context", "full_context"], backend="offline",
                    out=tmp_path / "run", workers=1, progress=False)
    judged = rescore(rows, items)
    assert judged.height == 4 and judged["error"].null_count() == 4
    assert rows["score"].to_list() == judged["score"].to_list()  # the shared reader scores with the rubric judge
    import polars as pl

    by = dict(judged.group_by("method").agg(pl.col("score").mean()).iter_rows())
    assert by["full_context"] >= by["no_context"]


def test_a_recorded_session_becomes_a_visual_grounding_item(tmp_path):
    from filegram_kit.record.observations import Observation
    from filegram_kit.record.translate import write_sessions

    kinds = [("read", "notes/a.md"), ("read", "notes/b.md"), ("mkdir", "reports"), ("write", "reports/draft.md"),
             ("read", "notes/c.md"), ("write", "reports/draft.md"), ("write", "reports/2026-05-01_summary.md"),
             ("move", "reports/draft.md"), ("delete", "notes/c.md"), ("write", "reports/2026-05-02_summary.md")]
    observations = [Observation(k, p, 1_800_000_000_000 + 5000 * n, dest="archive/draft.md" if k == "move" else None,
                                is_dir=k == "mkdir", content=None if k != "write" else f"# v{n}\n", source="watchdog")
                    for n, (k, p) in enumerate(kinds)]
    write_sessions(observations, tmp_path, name="me")
    items = visual_grounding_items(tmp_path, seed=0)
    assert len(items) == 1 and "an unnamed task" in items[0].question
    future = items[0].metadata["future"]
    assert "DELETE" in future["actions"] and "2026-05-02_summary.md" in future["created"]
    assert judge_prediction(items[0].correct, future).score >= 85


@needs_ocr
def test_cli_writes_track4_items_and_the_visual_setting(corpus, tmp_path, capsys):
    from filegram_kit.bench.items import load_items
    from filegram_kit.cli import main

    assert main(["bench", "build", "--corpus", str(corpus), "--out", str(tmp_path / "items.parquet"), "--track4",
                 str(tmp_path / "t4.parquet"), "--no-audit"]) == 0
    t4 = load_items(tmp_path / "t4.parquet")
    assert Counter(i.sub_track for i in t4) == {"file_grounding": len(build_file_grounding(corpus)[0]),
                                                "visual_grounding": round(100 * 16 / 640)}
    assert "Track 4 items" in capsys.readouterr().out
    assert main(["corpus", "--setting", "visual", "--from", str(corpus), "--out", str(tmp_path / "visual")]) == 0
    assert "captioned exactly" in capsys.readouterr().out
    ids = {i.input_trajectories[0] for i in t4 if i.sub_track == "visual_grounding"}
    assert {p.name for p in (tmp_path / "visual" / "signal").iterdir()} == ids


def test_track4_items_name_their_setting_and_each_setting_lives_beside_the_corpus(corpus):
    items = track4_items(corpus, seed=0)
    groups = by_setting(items)
    assert list(groups) == ["multimodal", "visual"]
    assert {i.sub_track for i in groups["multimodal"]} == {"file_grounding"}
    assert {i.sub_track for i in groups["visual"]} == {"visual_grounding"}
    assert setting_dir(corpus, "visual") == corpus.with_name("corpus_visual")
    with pytest.raises(ValueError, match="unknown setting"):
        setting_dir(corpus, "audio")


@needs_ocr
def test_a_stale_setting_is_rebuilt_and_a_foreign_folder_is_never_replaced(corpus, tmp_path):
    import json

    items = visual_grounding_items(corpus, seed=0)[:1]
    out = setting_corpus(corpus, "visual", items, out=tmp_path / "visual")
    manifest = json.loads((out / "corpus.json").read_text())
    (out / "corpus.json").write_text(json.dumps({**manifest, "visual": {**manifest["visual"], "code": "stale"}}))
    (out / "signal" / "leftover").mkdir()
    with pytest.warns(UserWarning, match="rebuilding the visual setting"):
        setting_corpus(corpus, "visual", items, out=out)
    assert json.loads((out / "corpus.json").read_text()) == manifest and not (out / "signal" / "leftover").exists()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "corpus.json").write_text(json.dumps({"setting": "text", "engine": "x"}))
    with pytest.raises(ValueError, match="another corpus or by other code"):
        setting_corpus(corpus, "visual", items, out=foreign)
    assert json.loads((foreign / "corpus.json").read_text())["setting"] == "text"


# -- a keyed backend: the model captions the replay ------------------------------------------------------------
class VideoModel:
    """A stand-in for a backend that takes video: replies come from a queue; what was sent is kept."""

    name, model = "fake", "reads-status-bars"

    def __init__(self, replies):
        self.replies, self.sent = list(replies), []

    @contextlib.contextmanager
    def phase(self, name):
        yield

    def complete_multimodal(self, prompt, media, *, json_mode=False):
        from filegram_kit.llm.prompting import Completion

        self.sent.append((prompt, [Path(m).suffix for m in media], [Path(m).read_bytes()[:8] for m in media]))
        return Completion(self.replies.pop(0))


def test_model_captions_are_checked_frame_by_frame():
    from filegram_kit.bench.keyed_captions import parse_captions
    from filegram_kit.llm.tasks import ParseError

    reply = ('```json\n[["read", "notes/a.md"], ["FLY", "x"], null, ["WRITE", ""], ["WRITE", "out/b.md"], '
             '["READ", "c"]]```')
    assert parse_captions(reply, 7) == [("READ", "notes/a.md"), None, None, None, ("WRITE", "out/b.md"),
                                        ("READ", "c"), None]
    assert parse_captions(reply, 1) == [("READ", "notes/a.md")]
    with pytest.raises(ParseError, match="not JSON .session p1_T-01."):
        parse_captions("I see a file manager.", 3, session="p1_T-01")
    with pytest.raises(ParseError, match="not a JSON list"):
        parse_captions('{"frames": []}', 3)


def test_a_backend_without_video_input_is_refused_by_name():
    from filegram_kit.bench.keyed_captions import caption_with_backend, transcriber
    from filegram_kit.llm import get_backend

    with pytest.raises(ValueError, match="'offline' takes no video"):
        caption_with_backend(b"", get_backend("offline"), frames=1)
    with pytest.raises(ValueError, match="takes no audio"):
        transcriber(get_backend("offline"))
    model = VideoModel(["  hello there  "])
    assert transcriber(model)(b"ID3fake") == "hello there" and model.sent[0][1] == [".mp3"]


@needs_ocr
def test_a_recaptioned_setting_is_rebuilt_from_the_models_captions_in_its_own_folder(corpus, tmp_path):
    import json

    from filegram_kit.bench.keyed_captions import recaption_visual_setting

    items = visual_grounding_items(corpus, seed=0)[:2]
    build_visual_setting(corpus, tmp_path / "visual", items)
    offline = {p: p.read_bytes() for p in sorted((tmp_path / "visual").rglob("*")) if p.is_file()}
    alignments = [json.loads((tmp_path / "visual" / "signal" / tid / "media" / "replay.json").read_text())["frames"]
                  for tid in sorted(i.input_trajectories[0] for i in items)]
    model = VideoModel([json.dumps([[f["action"], f["target"]] for f in frames]) for frames in alignments])
    report = recaption_visual_setting(tmp_path / "visual", tmp_path / "keyed", model, progress=False)
    assert report == {"sessions": 2, "frames": sum(map(len, alignments)), "captions_dropped": 0,
                      "exact": sum(map(len, alignments))}
    assert all(suffixes == [".mp4"] for _, suffixes, _ in model.sent)
    assert all(head[4:8] == b"ftyp" for _, _, (head,) in model.sent)  # the replay video itself went to the model
    assert {p: p.read_bytes() for p in offline} == offline  # the offline setting is untouched
    manifest = json.loads((tmp_path / "keyed" / "corpus.json").read_text())
    assert manifest["setting"] == "visual" and manifest["visual"]["captioner"] == "fake/reads-status-bars"
    trajs = load_trajectories(tmp_path / "keyed", progress=False)
    assert len(trajs) == 2 and not trajs.quarantine
    again = recaption_visual_setting(tmp_path / "visual", tmp_path / "keyed", VideoModel([]), progress=False)
    assert again["sessions"] == 0  # finished sessions are kept: nothing is sent twice
    with pytest.raises(ValueError, match="another captioning"):
        other = VideoModel([])
        other.model = "another"
        recaption_visual_setting(tmp_path / "visual", tmp_path / "keyed", other, progress=False)


def test_eval_refuses_visual_grounding_from_a_corpus_that_holds_the_answer(corpus, tmp_path, capsys):
    from filegram_kit.bench.items import write_items
    from filegram_kit.cli import main

    visual = write_items(visual_grounding_items(corpus, seed=0)[:1], tmp_path / "vg.parquet")
    argv = ["--methods", "no_context", "--workers", "1", "--limit", "1"]
    assert main(["eval", "--items", str(visual), "--corpus", str(corpus), "--out", str(tmp_path / "r1"), *argv]) == 2
    assert "need the visual setting" in capsys.readouterr().err and not (tmp_path / "r1").exists()
    grounding = write_items(build_file_grounding(corpus, seed=0)[0][:1], tmp_path / "fg.parquet")
    assert main(["eval", "--items", str(grounding), "--corpus", str(corpus), "--out", str(tmp_path / "r2"),
                 *argv]) == 0
    assert "meant for the multimodal setting" in capsys.readouterr().err  # the text-setting half of the comparison
