"""A trajectory as a file-manager screen recording, and the offline captioner that reads it back.

    steps = gui_steps(traj)                          # one step per file operation a user would see
    video, alignment = record_replay(steps)          # MP4 bytes (PyAV) + frame -> event index
    events = caption_video(video)                    # OCR of each frame's status bar -> (action, target)

Each frame shows a tree pane (every path the session has touched so far, the current one marked by
the cursor), a preview pane (the first lines of what was just written; a read shows the file's name)
and a status bar naming the action and its target ("WRITE output/report.md"). Frames are drawn with
Pillow and encoded at FPS frames a second with PyAV's MPEG-4 encoder (bit-exact, one thread), so the
same trajectory gives the same bytes. The captioner decodes the video and OCRs the status bars with
tesseract in one batch: it recovers what a screen shows, not what the event log knew (no sizes, no
hashes, no timing finer than a frame).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

import numpy as np

from ..traces.schema import Trajectory
from ..util import cjk
from .parse import ocr
from .render import pil_font

FRAME_W, FRAME_H, TREE_W, STATUS_H, FPS = 800, 450, 300, 34, 2
TREE_ROWS, PREVIEW_LINES, FONT = 17, 16, 15
ACTIONS = {"file_read": "READ", "file_write": "WRITE", "file_edit": "EDIT", "dir_create": "MKDIR",
           "file_copy": "COPY", "file_move": "MOVE", "file_rename": "RENAME", "file_delete": "DELETE",
           "file_browse": "BROWSE", "file_search": "SEARCH"}
ROOT = "(workspace root)"  # what the status bar shows for the top folder (a lone "." is not legible)
STATUS_CHARS = 95  # the status bar shows this many columns of "ACTION target" (a Chinese character takes two)
_STATUS = re.compile(r"(" + "|".join(ACTIONS.values()) + r")\s+(.+)")
_PATH_GAP = re.compile(f"(?<=[/{cjk.WIDE}]) +| +(?=[{cjk.WIDE}])")


@dataclass(frozen=True)
class GuiStep:
    event_index: int  # position in the trajectory's events
    action: str  # READ, WRITE, ... (ACTIONS)
    target: str  # the path (or "old -> new", the search query)
    tree: tuple[str, ...]  # paths touched so far, sorted
    preview: str  # what the preview pane shows


def _target(event) -> str:
    f = event.fields
    if event.event_type in ("file_copy",):
        return f"{f.get('source_path', '')} -> {f.get('dest_path', '')}"
    if event.event_type in ("file_move", "file_rename"):
        return f"{f.get('old_path', '')} -> {f.get('new_path', '')}"
    if event.event_type == "file_search":
        return str(f.get("query", ""))
    if event.event_type == "file_browse":
        path = str(f.get("directory_path", "") or ".")
        return ROOT if path in (".", "", "/") else path
    if event.event_type == "dir_create":
        return str(f.get("dir_path", ""))
    return str(f.get("file_path", ""))


def _touched(event) -> list[str]:
    f = event.fields
    keys = {"file_copy": ("dest_path",), "file_move": ("new_path",), "file_rename": ("new_path",),
            "dir_create": ("dir_path",)}.get(event.event_type, ("file_path",))
    return [str(f[k]) for k in keys if f.get(k)]


def _preview(traj: Trajectory, event) -> str:
    ref = event.fields.get("media_ref") or event.fields.get("media_ref_new")
    if ref and traj.media is not None:
        try:
            return traj.content(ref)
        except LookupError:
            return ""
    return f"({ACTIONS[event.event_type].lower()} {_target(event).rsplit('/', 1)[-1]})"


def gui_steps(traj: Trajectory) -> list[GuiStep]:
    """The session as a user would see it on screen: one step per file operation (derived events such as
    cross-file references and context switches have no screen action of their own)."""
    tree: set[str] = set()
    steps = []
    for i, event in enumerate(traj.events):
        if event.event_type not in ACTIONS:
            continue
        if event.event_type == "file_delete":
            tree.discard(str(event.fields.get("file_path")))
        else:
            if event.event_type in ("file_move", "file_rename"):
                tree.discard(str(event.fields.get("old_path")))
            tree |= set(_touched(event))
        steps.append(GuiStep(i, ACTIONS[event.event_type], _target(event), tuple(sorted(tree)),
                             _preview(traj, event)))
    return steps


def status_text(step: GuiStep) -> str:
    """What the status bar shows: the action and its target, cut at STATUS_CHARS columns."""
    return cjk.cut(f"{step.action} {step.target}", STATUS_CHARS)


def draw_frame(step: GuiStep):
    """One screen: tree pane on the left with the cursor on the target, preview on the right, status bar."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (FRAME_W, FRAME_H), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, TREE_W, FRAME_H - STATUS_H), fill=(236, 239, 244))
    current = step.target.split(" -> ")[-1]
    rows = list(step.tree)
    start = max(0, rows.index(current) - TREE_ROWS + 1) if current in rows else 0
    for n, path in enumerate(rows[start:start + TREE_ROWS]):
        y = 8 + n * 22
        if path == current:
            draw.rectangle((2, y - 2, TREE_W - 2, y + 18), fill=(200, 215, 240))
            draw.polygon([(TREE_W - 24, y + 2), (TREE_W - 24, y + 16), (TREE_W - 14, y + 11)], fill=(20, 20, 20))
        name = cjk.cut(path.rsplit("/", 1)[-1], 30)
        draw.text((8 + 12 * path.count("/"), y), name, fill=(30, 30, 30), font=pil_font(FONT, name))
    lines = [cjk.cut(line, 58) for line in step.preview.splitlines() if line.strip()][:PREVIEW_LINES]
    for n, line in enumerate(lines):
        draw.text((TREE_W + 14, 10 + n * 22), line, fill=(40, 40, 40), font=pil_font(FONT, line))
    draw.rectangle((0, FRAME_H - STATUS_H, FRAME_W, FRAME_H), fill=(255, 255, 255))
    draw.line((0, FRAME_H - STATUS_H, FRAME_W, FRAME_H - STATUS_H), fill=(160, 160, 160))
    status = status_text(step)
    draw.text((10, FRAME_H - STATUS_H + 7), status, fill=(0, 0, 0), font=pil_font(17, status))
    return image


def encode_video(images: list) -> bytes:
    """MPEG-4 video of the frames at FPS (bit-exact, one thread: the same frames give the same bytes)."""
    import av

    buf = io.BytesIO()
    out = av.open(buf, "w", format="mp4", options={"fflags": "+bitexact"})
    stream = out.add_stream("mpeg4", rate=FPS)
    stream.width, stream.height, stream.pix_fmt = FRAME_W, FRAME_H, "yuv420p"
    stream.bit_rate = 400_000
    stream.codec_context.thread_count = 1
    stream.codec_context.flags |= av.codec.context.Flags.bitexact
    for image in images:
        for packet in stream.encode(av.VideoFrame.from_ndarray(np.asarray(image), format="rgb24")):
            out.mux(packet)
    for packet in stream.encode(None):
        out.mux(packet)
    out.close()
    return buf.getvalue()


def record_replay(steps: list[GuiStep]) -> tuple[bytes, list[dict]]:
    """(MP4 bytes, alignment: per frame its time, event index, action and target)."""
    video = encode_video([draw_frame(s) for s in steps])
    alignment = [{"frame": n, "seconds": n / FPS, "event_index": s.event_index, "action": s.action,
                  "target": s.target} for n, s in enumerate(steps)]
    return video, alignment


def video_frames(video: bytes) -> list[np.ndarray]:
    """The decoded RGB frames of a video, in order."""
    import av

    with av.open(io.BytesIO(video)) as container:
        return [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]


def _status_png(frame: np.ndarray) -> bytes:
    from PIL import Image

    strip = Image.fromarray(frame[FRAME_H - STATUS_H:, :, :]).convert("L")  # ocr() enlarges it
    buf = io.BytesIO()
    strip.save(buf, "PNG")
    return buf.getvalue()


def status_pngs(video: bytes) -> list[bytes]:
    """Each frame's status bar as the PNG the OCR captioner reads."""
    return [_status_png(f) for f in video_frames(video)]


def read_status(text: str) -> tuple[str, str] | None:
    """(action, target) in the OCR text of a status bar; None where nothing legible was found."""
    # one line on screen: a break in the OCR text is the OCR's ("W\nRITE 总结.md" around a Chinese name)
    match = _STATUS.search(" ".join("".join(text.splitlines()).split()))
    if not match:
        return None
    target = _PATH_GAP.sub("", match.group(2))  # OCR spaces a Chinese name off its folder and extension
    return match.group(1), re.sub(r"[\s;:,|.]+$", "", target)


def caption_frames(frames: list[np.ndarray]) -> list[tuple[str, str] | None]:
    """(action, target) read off each frame's status bar by OCR; None where nothing legible was found."""
    return [read_status(text) for text in ocr([_status_png(f) for f in frames])]


def caption_video(video: bytes) -> list[tuple[str, str] | None]:
    """The offline captioner: what each frame of a replay shows, read back by OCR."""
    return caption_frames(video_frames(video))
