"""Track 4 Visual Grounding: the first half of a session's screen recording; predict what comes next.

    items = visual_grounding_items("data/corpus", seed=0)              # 100 at the paper's 640 trajectories
    build_visual_setting("data/corpus", "data/corpus_visual", items)   # the first halves, as a memory sees them
    judged = judge_prediction(answer_text, item.metadata["future"])     # visual_judge.py: -> 0-100

The paper gives the first half of a real participant's screen recording and asks for the subsequent
file operations and behavioural patterns (free-form, 100 items). Ours are replays of engine
sessions (multimodal/screen_replay.py draws the file manager; a `filegram record` session works the same);
the item's input is the **captioned** first half: the video is read back by OCR into events
(offline; a keyed backend could caption the frames instead) and written as a trajectory of its own in
the visual setting's corpus, so a memory never sees the event log, only what the screen showed.

The rubric judge (visual_judge.py) scores an answer against the second half's own steps: operations,
targets and naming, each an F1, their mean x 100; the shared reader applies it to every backend's answers.
Controls as for Profile Reconstruction: the reference itself scores high, an echo of the question
scores near 0, and another session's reference scores lower than the right one (`controls`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from ..multimodal.parse import ocr
from ..multimodal.screen_replay import ROOT, gui_steps, read_status, record_replay, status_pngs
from ..traces.tasks import get_task
from ..util import atomic
from ..util.executors import LocalExecutor
from ..util.progress import progress_bar
from .inputs import TrajectoryStore
from .schema import Item
from .visual_judge import judge_prediction, reference_answer

SUB_TRACK, TRACK, ABBR, PAPER_COUNT, PAPER_TRAJECTORIES = "visual_grounding", "T4_multimodal", "VisGrd", 100, 640
MIN_STEPS = 8  # a session shorter than this has too little of either half
SETTING = "visual"
def _paths(step_target: str) -> list[str]:
    return [p.strip() for p in step_target.split(" -> ") if p.strip() and p.strip() != ROOT]


def _future(steps: list, seen: tuple[str, ...]) -> dict[str, Any]:
    """What the second half does; `seen`: the paths on screen at the end of the first half."""
    known, created = set(seen), []
    for s in steps:
        if s.action == "WRITE" and s.target not in known:
            created.append(s.target.rsplit("/", 1)[-1])
        known |= set(_paths(s.target))
    return {"sequence": [s.action for s in steps], "actions": sorted({s.action for s in steps}),
            "targets": sorted({p for s in steps for p in _paths(s.target)}), "created": sorted(set(created))}


def _question(task_id: str | None) -> str:
    task = get_task(task_id).description if task_id else "an unnamed task"
    return (f"The screen recording shows the first half of a work session (task: {task}). Predict what the user "
            "does next: which file operations follow, which files and folders they touch, and how any new files "
            "are named.")


def visual_grounding_items(corpus: str | Path, *, seed: int = 0) -> list[Item]:
    """100 items (scaled by the corpus' size), sessions drawn evenly over the personas, at least MIN_STEPS steps."""
    store = TrajectoryStore(corpus)
    dirs = sorted(p.name for p in (Path(corpus) / "signal").iterdir() if (p / "events.json").is_file())
    target = max(1, round(PAPER_COUNT * len(dirs) / PAPER_TRAJECTORIES))
    rng = np.random.default_rng([seed, 200])
    by_persona: dict[str, list[str]] = {}
    for tid in rng.permutation(dirs):
        by_persona.setdefault(str(tid).rsplit("_", 1)[0], []).append(str(tid))
    chosen, items = [], []
    while len(chosen) < target and any(by_persona.values()):
        for persona in sorted(by_persona):
            while by_persona[persona] and len(chosen) < target:
                tid = by_persona[persona].pop()
                if len(gui_steps(store.get(tid))) >= MIN_STEPS:
                    chosen.append(tid)
                    break
    for n, tid in enumerate(chosen, 1):
        traj = store.get(tid)
        steps = gui_steps(traj)
        half = len(steps) // 2
        future = _future(steps[half:], steps[half - 1].tree)
        prefix = f"{ABBR.lower()}_s{seed}" if seed else ABBR.lower()
        items.append(Item(f"{prefix}_{n:04d}", TRACK, SUB_TRACK, "next_operations", "episodic", traj.profile_id or "",
                          (tid,), _question(traj.task_id), (), reference_answer(future),
                          {"item_seed": seed, "setting": SETTING, "future": future, "half": half,
                           "steps": len(steps)}))
    return items


# -- the visual setting: what a memory of a recording gets ---------------------------------------------------
def _observation(action: str, target: str, time_ms: float):
    """The recorder's observation for one captioned screen action (None when the caption is unusable)."""
    from ..record.observations import Observation, ObservationError

    first, _, second = target.partition(" -> ")
    kind = {"READ": "read", "WRITE": "write", "EDIT": "write", "MKDIR": "mkdir", "COPY": "copy", "MOVE": "move",
            "RENAME": "move", "DELETE": "delete", "BROWSE": "browse", "SEARCH": "search"}[action]
    try:
        if kind == "search":
            return Observation("search", "", time_ms, query=target, search_type="grep", source="screen")
        path = "" if first == ROOT else first.strip("/")
        return Observation(kind, path, time_ms, dest=second or None, is_dir=kind == "mkdir", source="screen")
    except ObservationError:
        return None


def captioned_session(tid: str, captions: list, folder: Path, start_ms: float) -> tuple[Path, int]:
    """The captioned steps as one recorded session in folder/<tid>; (its folder, captions dropped)."""
    from ..record.translate import write_sessions

    observations = [o for n, c in enumerate(captions) if c is not None
                    for o in [_observation(c[0], c[1], start_ms + 1000.0 * n / 2)] if o is not None]
    dropped = len(captions) - len(observations)
    with tempfile.TemporaryDirectory(prefix=".visual-", dir=folder) as tmp:
        written = write_sessions(observations, tmp, name="screen", idle_gap_ms=float("inf"), seed=0)
        dest = folder / tid
        if written:
            shutil.move(str(written[0]), dest)
        else:
            atomic.write_text(dest / "events.json", "[]\n")
    return dest, dropped


VISUAL_SOURCES = ("multimodal/screen_replay.py", "multimodal/parse.py", "bench/visual_grounding.py", "record/*.py",
                  "traces/media.py", "traces/schema.py", "traces/documents.py")


def visual_code() -> str:
    """sha256 (16 hex) of the code that decides the visual setting: the replay, the captioner, the recorder."""
    from ..util.code_closure import PACKAGE, digest

    return digest([p for pattern in VISUAL_SOURCES for p in PACKAGE.glob(pattern)])[:16]


def _manifest(corpus: Path, out: Path) -> dict[str, Any]:
    info = json.loads((corpus / "corpus.json").read_text(encoding="utf-8")) if (corpus / "corpus.json").is_file() \
        else {}
    manifest = {**info, "setting": SETTING, "visual": {"source": str(corpus), "code": visual_code()}}
    if (out / "corpus.json").is_file():
        old = json.loads((out / "corpus.json").read_text(encoding="utf-8"))
        if old.get("visual", {}).get("code") != manifest["visual"]["code"] or old.get("engine") != info.get("engine"):
            raise ValueError(f"{out} holds a visual setting built from another corpus or by other code; "
                             "delete it or give another folder")
    return manifest


REPLAY_CHUNK = 16  # sessions per work unit: one OCR process reads all their frames (its start-up is ~0.1 s)
REPORT_KEYS = ("sessions", "frames", "captions_dropped", "exact")


def build_visual_setting(corpus: str | Path, out: str | Path, items: list[Item], *, workers: int | None = None,
                         progress: bool | None = None) -> dict[str, Any]:
    """For each item's session: the replay of its first half (media/replay.mp4, replay.json), read back by the
    OCR captioner into a trajectory of its own under out/signal/<id>; ground truth files copied for scoring.
    Sessions already there are kept (another item seed adds its own); the rest are replayed by `workers`
    spawned processes (default: one per core), each session landing in place by one rename. Returns counts
    over the sessions replayed now."""
    corpus, out = Path(corpus), Path(out)
    manifest = _manifest(corpus, out)
    signal = out / "signal"
    signal.mkdir(parents=True, exist_ok=True)
    for stale in signal.glob(".*"):  # an interrupted worker's staging folder
        shutil.rmtree(stale, ignore_errors=True)
    todo: dict[str, int] = {}
    for item in items:
        tid = item.input_trajectories[0]
        if tid not in todo and not (signal / tid / "events.json").is_file():
            todo[tid] = int(item.metadata["half"])
    pending = list(todo.items())
    chunks = [pending[i:i + REPLAY_CHUNK] for i in range(0, len(pending), REPLAY_CHUNK)]
    report = dict.fromkeys(REPORT_KEYS, 0)
    bar = progress_bar(total=len(pending), desc="replaying sessions", unit="session",
                       disable=None if progress is None else not progress)
    executor = LocalExecutor("process", max(1, min(workers or os.cpu_count() or 1, len(chunks) or 1)))
    for _, counts in executor.imap(_replay_chunk, [(str(corpus), str(out), chunk) for chunk in chunks]):
        report = {k: report[k] + counts[k] for k in REPORT_KEYS}
        bar.update(counts["sessions"])
    bar.close()
    for name in ("profiles.json", "perturbations.json", "expressed.json"):
        if (corpus / name).is_file():
            shutil.copyfile(corpus / name, out / name)
    atomic.write_json(out / "corpus.json", manifest)
    return report


def _replay_chunk(corpus: str, out: str, sessions: list[tuple[str, int]]) -> dict[str, int]:
    """Worker: replay each (session, first-half length), caption all their frames in one OCR call, build each
    session in a hidden staging folder of out/signal and rename it into place (a stopped build resumes)."""
    store, signal = TrajectoryStore(corpus), Path(out) / "signal"
    replays = []
    for tid, half in sessions:
        traj = store.get(tid)
        steps = gui_steps(traj)[:half]
        video, alignment = record_replay(steps)
        replays.append((tid, traj, steps, video, alignment, status_pngs(video)))
    texts = iter(ocr([png for *_, pngs in replays for png in pngs]))
    report = dict.fromkeys(REPORT_KEYS, 0)
    staging = Path(tempfile.mkdtemp(prefix=".replay.", dir=signal))
    try:
        for tid, traj, steps, video, alignment, pngs in replays:
            captions = [read_status(next(texts)) for _ in pngs]
            start = min((e.timestamp for e in traj.events), default=0.0)
            dest, dropped = captioned_session(tid, captions, staging, start)
            atomic.write_bytes(dest / "media" / "replay.mp4", video)
            atomic.write_json(dest / "media" / "replay.json", {"fps": 2, "frames": alignment, "captions": captions})
            dest.rename(signal / tid)
            report["sessions"] += 1
            report["frames"] += len(steps)
            report["captions_dropped"] += dropped
            report["exact"] += sum(c is not None and (c[0], c[1]) == (s.action, s.target) for c, s in zip(
                captions, steps, strict=True))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


def rescore(results, items: list[Item]):
    """Result rows of Visual Grounding items with `score` replaced by the rubric judge's (0-100) and its parts
    (`operations`, `targets`, `naming`); the harness's generic Likert judge does not read the second half."""
    import polars as pl

    future = {i.question_id: i.metadata["future"] for i in items}
    visual = results.filter(pl.col("question_id").is_in(list(future)))
    judged = [judge_prediction(r["answer"] or "", future[r["question_id"]]) for r in visual.iter_rows(named=True)]
    return visual.with_columns(pl.Series("score", [j.score for j in judged], dtype=pl.Float64),
                               pl.Series("operations", [j.operations for j in judged], dtype=pl.Float64),
                               pl.Series("targets", [j.targets for j in judged], dtype=pl.Float64),
                               pl.Series("naming", [j.naming for j in judged], dtype=pl.Float64))


def controls(items: list[Item], *, shift: int = 37) -> dict[str, float]:
    """Mean rubric score of three fixed answers: the reference (high), another session's reference (lower)
    and an echo of the question (near 0). A judge that does not separate them is not reading the future."""
    n = len(items)
    if n < 2:
        raise ValueError("controls need at least two items (the wrong answer is another item's reference)")
    mean = lambda answers: round(float(np.mean([judge_prediction(a, i.metadata["future"]).score  # noqa: E731
                                                for a, i in zip(answers, items, strict=True)])), 1)
    return {"reference": mean([i.correct for i in items]),
            "wrong_reference": mean([items[(k + shift) % n].correct if (k + shift) % n != k else ""
                                     for k in range(n)]),
            "echo": mean([i.question for i in items])}
