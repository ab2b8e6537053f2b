"""What a keyed backend adds to Track 4: the model captions a replay and transcribes a narration.

    captions = caption_with_backend(video, backend, frames=len(alignment))   # instead of OCR (caption_video)
    recaption_visual_setting("data/corpus_visual", "data/corpus_visual_gemini", backend)
    parse_files(files, transcribe=transcriber(backend))                       # narrations get a transcript

Offline, the visual setting reads each frame's status bar by OCR. A backend that takes images, audio and
video (`complete_multimodal`: Gemini) gets the recording itself, as the paper's Real-World setting gives
Gemini the screen recordings to caption. A reply is checked, never trusted: a reply that is not a JSON list
is a ParseError naming the session, and an entry outside the replay's vocabulary counts as a frame the model
could not read (None: dropped from the session, and counted).

The re-captioned setting goes to a folder of its own, with the captioner in its corpus.json, so the offline
setting that `make reproduce` reads is never replaced by a model's captions. The multimodal build stays
offline too: its bytes are keyed by its code (build.RENDER_SOURCES), and a transcript would make them depend
on a model; `transcriber` serves `parse_files` and anyone reading a narration.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm.tasks import ParseError
from ..multimodal.screen_replay import ACTIONS, FPS
from ..util import atomic
from ..util.progress import progress_bar

if TYPE_CHECKING:
    from ..llm.base import Backend

CAPTION_TASK = "caption_replay"
CAPTION_PROMPT = (
    "This video is a screen recording of a file manager, {fps} frames per second, {frames} frames. Each frame's "
    "status bar, at the bottom, names one action ({actions}) and its target path (two paths joined by ' -> ' for "
    "a copy, move or rename; the query for a search). For every frame in order, reply with what its status bar "
    "says, as a JSON list of {frames} entries: [action, target], or null for a frame you cannot read. "
    "Reply with the JSON list only.")
TRANSCRIBE_PROMPT = "Transcribe the speech in this recording word for word. Reply with the transcript only."
_VOCABULARY = frozenset(ACTIONS.values())


def _multimodal(backend: Backend, what: str) -> Callable[..., Any]:
    call = getattr(backend, "complete_multimodal", None)
    if call is None:
        raise ValueError(f"backend {getattr(backend, 'name', backend)!r} takes no {what}: use one that does "
                         "(gemini; set GEMINI_API_KEY), or the offline path")
    return call


def _ask(backend: Backend, prompt: str, data: bytes, suffix: str, what: str, json_mode: bool) -> str:
    call = _multimodal(backend, what)
    with tempfile.TemporaryDirectory(prefix="filegram-keyed-") as tmp:
        path = Path(tmp) / f"media{suffix}"  # sent by its extension's media type
        path.write_bytes(data)
        with backend.phase("ingest"):
            return call(prompt, [path], json_mode=json_mode).text


def _fenced(text: str) -> str:
    found = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    return found.group(1) if found else text


def parse_captions(reply: str, frames: int, *, session: str = "") -> list[tuple[str, str] | None]:
    """The model's reply as one (action, target) or None per frame; a reply that is not a JSON list is a
    ParseError. Entries past `frames` are dropped and missing ones are None: the alignment has the count."""
    where = f" (session {session})" if session else ""
    try:
        entries = json.loads(_fenced(reply).strip())
    except ValueError:
        raise ParseError(CAPTION_TASK, f"not JSON{where}", reply) from None
    if not isinstance(entries, list):
        raise ParseError(CAPTION_TASK, f"not a JSON list{where}", reply)
    out: list[tuple[str, str] | None] = []
    for entry in entries[:frames]:
        ok = isinstance(entry, list | tuple) and len(entry) == 2 and all(isinstance(x, str) for x in entry)
        action, target = (str(entry[0]).strip().upper(), str(entry[1]).strip()) if ok else ("", "")
        out.append((action, target) if action in _VOCABULARY and target else None)
    return out + [None] * (frames - len(out))


def caption_with_backend(video: bytes, backend: Backend, *, frames: int, session: str = "") -> list[
        tuple[str, str] | None]:
    """What each frame of a replay shows, as the model reads the video (`caption_video` is the offline one)."""
    prompt = CAPTION_PROMPT.format(fps=FPS, frames=frames, actions=", ".join(sorted(_VOCABULARY)))
    return parse_captions(_ask(backend, prompt, video, ".mp4", "video", True), frames, session=session)


def transcriber(backend: Backend) -> Callable[[bytes], str]:
    """A `transcribe` for parse_files: the model's transcript of an MP3 narration."""
    _multimodal(backend, "audio")
    return lambda audio: _ask(backend, TRANSCRIBE_PROMPT, audio, ".mp3", "audio", False).strip()


def _start_ms(visual: Path, info: dict[str, Any], tid: str) -> float:
    """The session's first timestamp: from the source corpus when it is here, else the setting's own events."""
    from .inputs import TrajectoryStore

    source = Path(info.get("visual", {}).get("source", ""))
    if (source / "signal" / tid / "events.json").is_file():
        return min((e.timestamp for e in TrajectoryStore(source).get(tid).events), default=0.0)
    events = json.loads((visual / "signal" / tid / "events.json").read_text(encoding="utf-8"))
    return float(min((e.get("timestamp", 0.0) for e in events), default=0.0))


def recaption_visual_setting(visual: str | Path, out: str | Path, backend: Backend, *,
                             progress: bool | None = None) -> dict[str, Any]:
    """A copy of the visual setting in `out` whose sessions are rebuilt from the model's captions of each
    replay (the recorder's own rules, as offline); sessions already there are kept (a stopped run resumes).
    Returns counts: sessions, frames, captions dropped, frames captioned exactly as the alignment says."""
    from .visual_grounding import captioned_session

    visual, out = Path(visual), Path(out)
    try:
        info = json.loads((visual / "corpus.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{visual / 'corpus.json'}: not readable ({exc}); give a visual setting") from None
    if info.get("setting") != "visual":
        raise ValueError(f"{visual}: corpus.json says setting {info.get('setting')!r}, not 'visual'")
    captioner = f"{backend.name}/{backend.model}"
    manifest = {**info, "visual": {**info.get("visual", {}), "captioner": captioner}}
    if (out / "corpus.json").is_file():
        if json.loads((out / "corpus.json").read_text(encoding="utf-8")) != manifest:
            raise ValueError(f"{out} holds another captioning; give another folder or delete it")
    elif out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} is not empty and holds no re-captioned setting; give an empty folder")
    (out / "signal").mkdir(parents=True, exist_ok=True)
    report = {"sessions": 0, "frames": 0, "captions_dropped": 0, "exact": 0}
    sessions = sorted(p.name for p in (visual / "signal").iterdir() if (p / "media" / "replay.json").is_file())
    for tid in progress_bar(sessions, desc="captioning replays", unit="session",
                            disable=None if progress is None else not progress):
        if (out / "signal" / tid / "media" / "replay.json").is_file():
            continue
        shutil.rmtree(out / "signal" / tid, ignore_errors=True)  # a session a stopped run left half written
        media = visual / "signal" / tid / "media"
        replay = json.loads((media / "replay.json").read_text(encoding="utf-8"))
        captions = caption_with_backend((media / "replay.mp4").read_bytes(), backend, frames=len(replay["frames"]),
                                        session=tid)
        dest, dropped = captioned_session(tid, captions, out / "signal", _start_ms(visual, info, tid))
        (dest / "media").mkdir(exist_ok=True)
        shutil.copyfile(media / "replay.mp4", dest / "media" / "replay.mp4")
        atomic.write_json(dest / "media" / "replay.json", {**replay, "captions": captions, "captioner": captioner})
        report["sessions"] += 1
        report["frames"] += len(captions)
        report["captions_dropped"] += dropped
        report["exact"] += sum(c is not None and [c[0], c[1]] == [f["action"], f["target"]]
                               for c, f in zip(captions, replay["frames"], strict=True))
    for name in ("profiles.json", "perturbations.json", "expressed.json"):
        if (visual / name).is_file():
            shutil.copyfile(visual / name, out / name)
    atomic.write_json(out / "corpus.json", manifest)
    return report
