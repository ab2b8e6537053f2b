"""Build the multimodal setting of a corpus: the same event logs, every text output rendered.

    report = build_multimodal("data/corpus", "data/corpus_multimodal", seed=0)

For each trajectory, every content snapshot of a Markdown, text or CSV file the agent wrote (the
blobs of `file_write` and of `file_edit`'s before/after) is split into sections (sections.py) and
each section rendered to a format drawn from the seed and the content (render.py). The renders go
to `media/renders/<section hash>.<ext>` (a section unchanged between two versions of an output is one
file). The blob itself is replaced by what the shared parser recovers
from them (parse.py), so a text method that reads `media/` reads the parse and nothing else; the
diff of an edit becomes the diff of the two parses. `events.json` and `summary.json` are copied
byte for byte. Each manifest entry lists its renders with what the parse lost, and the corpus gets
`parse_report.csv` (one row per rendered file).

Trajectories land in `signal/` by one atomic rename each, so a stopped build resumes where it was,
and the same source and seed give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing
import re
import shutil
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ..traces.media import unified_diff
from ..traces.schema import MEDIA_REF_FIELDS
from ..util import atomic
from ..util.executors import LocalExecutor
from ..util.progress import progress_bar
from ..util.seeds import stable_seed
from .parse import Transcriber, measure, parse_files
from .render import choose_format, extension, render_section
from .sections import Section, split_output

SETTING = "multimodal"
BUILD_VERSION = 2  # 2: Chinese drawn in a CJK font and OCR'd; Chinese characters counted apart in the report
RENDERED_TYPES = frozenset({"md", "markdown", "txt", "csv"})
REPORT_FILE = "parse_report.csv"
RENDERS = "renders"
RENDER_SOURCES = ("multimodal/build.py", "multimodal/parse.py", "multimodal/render.py", "multimodal/sections.py",
                  "multimodal/ooxml.py", "workspace/formats.py", "workspace/content.py", "traces/documents.py",
                  "traces/media.py", "util/cjk.py")
CHUNK = 8  # trajectories per work unit: one OCR process for all their images
_TOP_LEVEL = ("profiles.json", "perturbations.json", "expressed.json")


class MultimodalError(RuntimeError):
    """The source is not a text corpus, or the output folder holds another build."""


def _rendered(path: Any) -> bool:
    return isinstance(path, str) and path.rsplit(".", 1)[-1].lower() in RENDERED_TYPES


def _hash(ref: Any, where: str, index: int, name: str) -> str | None:
    """The hash of a media reference of a rendered file (None: no reference); a malformed one is an error."""
    if ref is None:
        return None
    digest = ref.get("hash") if isinstance(ref, dict) else None
    if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{8,64}", digest):
        raise MultimodalError(f"{where}: event {index}, field '{name}': expected a media reference with a hex "
                              f"'hash', got {ref!r:.80}")
    return digest


def render_targets(events: list[dict[str, Any]], where: str = "events.json"
                   ) -> tuple[dict[str, str], dict[str, tuple[str, str, str]]]:
    """(blob hash -> file path, diff hash -> (old blob, new blob, file path)) of the text outputs to render."""
    blobs: dict[str, str] = {}
    diffs: dict[str, tuple[str, str, str]] = {}
    for index, event in enumerate(events):
        path = event.get("file_path") if isinstance(event, dict) else None
        if not _rendered(path):
            continue
        found = {k: _hash(event.get(k), where, index, k) for k in MEDIA_REF_FIELDS}
        for name in ("media_ref", "media_ref_old", "media_ref_new"):
            if found[name] and event[name].get("type", "blob") == "blob":
                blobs.setdefault(found[name], path)
        old, new, diff = found["media_ref_old"], found["media_ref_new"], found["media_ref_diff"]
        if old and new and diff:
            diffs.setdefault(diff, (old, new, path))
    return blobs, diffs


def section_key(section: Section) -> str:
    """Content address of a section (title and text): the same section in two versions of an output is one file."""
    return hashlib.sha256(f"{section.title}\x1f{section.text}".encode()).hexdigest()[:16]


def _rng(seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng(stable_seed(seed, key))


@dataclass
class _Plan:
    """One trajectory's renders, made but not yet parsed (parsing is batched over several trajectories)."""

    source: Path
    dest: Path
    blobs: dict[str, str]  # blob hash -> file path
    diffs: dict[str, tuple[str, str, str]]
    layout: dict[str, list[tuple[Section, str]]]  # blob hash -> its sections and their keys
    unique: dict[str, tuple[Section, str]]  # section key -> (section, format)
    files: dict[str, bytes]  # section key -> rendered bytes


def _plan(source: Path, dest: Path, seed: int) -> _Plan:
    """Copy the trajectory to `dest` and render each distinct section of its text outputs once."""
    shutil.copytree(source, dest)
    events = json.loads((source / "events.json").read_text(encoding="utf-8"))
    if not isinstance(events, list):
        raise MultimodalError(f"{source / 'events.json'}: expected a JSON array of events")
    blobs, diffs = render_targets(events, str(source / "events.json"))
    layout: dict[str, list[tuple[Section, str]]] = {}
    unique: dict[str, tuple[Section, str]] = {}
    for digest, path in sorted(blobs.items()):
        blob = source / "media" / "blobs" / f"{digest}.blob"
        try:
            text = blob.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise MultimodalError(f"{blob}: the snapshot of {path} that events.json references cannot be read as "
                                  f"text ({type(exc).__name__}); is the source a complete text corpus?") from None
        for section in split_output(text, path):
            key = section_key(section)
            unique.setdefault(key, (section, choose_format(section, _rng(seed, key))))
            layout.setdefault(digest, []).append((section, key))
    files = {key: render_section(section, fmt) for key, (section, fmt) in unique.items()}
    return _Plan(source, dest, blobs, diffs, layout, unique, files)


def _record(section: Section, key: str, fmt: str, data: bytes, view: str, transcribed: bool) -> dict[str, Any]:
    loss = measure(section, fmt, view, transcribed=transcribed)
    return {"path": f"{RENDERS}/{key}.{extension(fmt)}", "format": fmt, "section": section.index,
            "title": section.title, "bytes": len(data), "source_words": loss.source_words,
            "recovered_words": loss.recovered_words, "source_han": loss.source_han, "recovered_han": loss.recovered_han,
            "table_flattened": loss.table_flattened, "image_without_text": loss.image_without_text,
            "audio_without_transcript": loss.audio_without_transcript}


def _finish(plan: _Plan, views: dict[str, str], transcribed: bool) -> list[dict[str, Any]]:
    """Write the renders, the parsed blobs and diffs, the manifest and the report of one planned trajectory."""
    media = plan.dest / "media"
    for key, (_, fmt) in plan.unique.items():
        atomic.write_bytes(media / RENDERS / f"{key}.{extension(fmt)}", plan.files[key])
    manifest = json.loads((media / "manifest.json").read_text(encoding="utf-8")) if (
        media / "manifest.json").is_file() else {"version": 1, "entries": {}}
    parsed, rows = {}, []
    for digest, sections in sorted(plan.layout.items()):
        parsed[digest] = "\n".join(views[key] for _, key in sections)
        records = [_record(sec, key, plan.unique[key][1], plan.files[key], views[key], transcribed)
                   for sec, key in sections]
        atomic.write_text(media / "blobs" / f"{digest}.blob", parsed[digest])
        entry = manifest["entries"].setdefault(digest, {"type": "blob", "original_path": plan.blobs[digest]})
        entry.update(rendered=records, parsed_chars=len(parsed[digest]))
        rows += [{"trajectory_id": plan.source.name, "blob": digest, "original_path": plan.blobs[digest], **r}
                 for r in records]
    for digest, (old, new, path) in sorted(plan.diffs.items()):
        atomic.write_text(media / "diffs" / f"{digest}.diff", unified_diff(parsed[old], parsed[new], path))
        manifest["entries"].setdefault(digest, {"type": "diff", "original_path": path})["parsed_diff"] = True
    manifest["setting"] = SETTING
    atomic.write_json(media / "manifest.json", manifest)
    atomic.write_json(media / RENDERS / "report.json", rows)
    return rows


def render_trajectories(pairs: list[tuple[Path, Path]], *, seed: int, transcribe: Transcriber | None = None
                        ) -> list[list[dict[str, Any]]]:
    """Write the multimodal copy of each (source trajectory folder, dest) pair; their parse-report rows.
    The renders of all of them are parsed in one batch (one OCR process: its start-up is most of a small batch)."""
    plans = [_plan(Path(src), Path(dest), seed) for src, dest in pairs]
    order = [(plan, key) for plan in plans for key in plan.unique]
    views = parse_files([(plan.files[key], plan.unique[key][1]) for plan, key in order], transcribe=transcribe)
    by_plan: dict[int, dict[str, str]] = {}
    for (plan, key), view in zip(order, views, strict=True):
        by_plan.setdefault(id(plan), {})[key] = view
    return [_finish(plan, by_plan.get(id(plan), {}), transcribe is not None) for plan in plans]


def render_trajectory(source: Path, dest: Path, *, seed: int, transcribe: Transcriber | None = None
                      ) -> list[dict[str, Any]]:
    """Write the multimodal copy of one trajectory folder into `dest`; its parse-report rows."""
    return render_trajectories([(source, dest)], seed=seed, transcribe=transcribe)[0]


class MissingGlyphs(logging.Filter):
    """Counts, instead of printing, fpdf's line for each PDF whose fonts lack a character it draws (a few emoji
    such as '📌' in CJK-font documents: drawn blank, no word lost); a build reports the count once."""

    _CHARACTER = re.compile(r"'(.+?)' \(")
    LOGGER = "fpdf.output"

    def __init__(self) -> None:
        super().__init__()
        self.documents = 0
        self.characters: Counter = Counter()  # character -> documents that lack it

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "is missing the following glyphs" not in message:
            return True
        self.documents += 1
        self.characters.update(set(self._CHARACTER.findall(message.split(":", 1)[-1])))
        return False

    def __enter__(self) -> MissingGlyphs:
        logging.getLogger(self.LOGGER).addFilter(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger(self.LOGGER).removeFilter(self)


def _chunk(sources: list[str], out: str, seed: int) -> tuple[list[str], int, dict[str, int]]:
    """Worker: render a few trajectories into hidden temp folders of `out`/signal, then rename each into place.
    Returns their names, and the PDFs whose fonts lacked a character (with those characters)."""
    signal = Path(out) / "signal"
    tmp = Path(tempfile.mkdtemp(prefix=".chunk.", dir=signal))
    try:
        pairs = [(Path(src), tmp / Path(src).name) for src in sources]
        with MissingGlyphs() as missing:
            render_trajectories(pairs, seed=seed)
        for _, dest in pairs:
            dest.rename(signal / dest.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return [Path(src).name for src in sources], missing.documents, dict(missing.characters)


@dataclass(frozen=True)
class MultimodalReport:
    out: Path
    trajectories: int  # asked for (`only`, else the source's)
    built: int  # rendered by this call (the rest were already there)
    report: pl.DataFrame  # parse_report.csv: one row per rendered file
    missing_glyphs: int = 0  # PDFs rendered by this call whose fonts lacked a character (drawn blank)
    missing_characters: tuple[str, ...] = ()  # those characters

    def __str__(self) -> str:
        r = self.report
        if r.is_empty():
            return f"{self.out}: {self.trajectories} trajectories, no text outputs to render"
        lines = [f"{self.out}: {self.trajectories} trajectories ({self.built} rendered now), {distinct(r).height} "
                 f"files ({r.height} section renders over {r['blob'].n_unique()} output snapshots)"]
        for row in loss_summary(r).iter_rows(named=True):
            zh = "" if row["recovered_zh"] is None else (f"  {100 * row['recovered_zh']:5.1f}% of Chinese characters "
                                                         f"({row['files_with_chinese']} files)")
            lines.append(f"  {row['format']:<10} {row['files']:>6} files  {100 * row['recovered']:5.1f}% of words "
                         f"recovered ({100 * row['recovered_en']:5.1f}% of English words{zh})  "
                         f"{row['tables_flattened']} tables flattened  {row['images_without_text']} images without "
                         f"text  {row['audio_without_transcript']} untranscribed")
        if self.missing_glyphs:
            lines.append(f"  {missing_glyphs_line(self.missing_glyphs, self.missing_characters)}")
        return "\n".join(lines)


def missing_glyphs_line(documents: int, characters: tuple[str, ...]) -> str:
    return (f"{documents} PDFs drew characters their fonts lack ({' '.join(characters)}): drawn blank, no word "
            "lost (fpdf's line for each is counted here instead)")


def distinct(report: pl.DataFrame) -> pl.DataFrame:
    """One row per rendered file (a section kept between two versions of an output is one file)."""
    return report.unique(["trajectory_id", "path"], keep="first", maintain_order=True)


def loss_summary(report: pl.DataFrame) -> pl.DataFrame:
    """Per format, over distinct files: how many, the share of their words the parse recovered (all, then apart:
    `recovered_en` of every token that is not a Chinese character, English words and numbers; `recovered_zh` of
    the Chinese characters, null where no file had one), and the structure it lost."""
    han, words = pl.col("source_han").sum(), pl.col("source_words").sum()
    return (distinct(report).group_by("format").agg(
        pl.len().alias("files"), (pl.col("recovered_words").sum() / words).alias("recovered"),
        pl.when(words > han).then((pl.col("recovered_words").sum() - pl.col("recovered_han").sum()) / (words - han))
        .alias("recovered_en"),
        pl.when(han > 0).then(pl.col("recovered_han").sum() / han).alias("recovered_zh"),
        (pl.col("source_han") > 0).sum().alias("files_with_chinese"),
        pl.col("table_flattened").sum().alias("tables_flattened"),
        pl.col("image_without_text").sum().alias("images_without_text"),
        pl.col("audio_without_transcript").sum().alias("audio_without_transcript"))
        .sort("files", "format", descending=[True, False]))


def _manifest(source: Path, seed: int) -> dict[str, Any]:
    """The setting's corpus.json: the source's (a folder of trajectories without one, e.g. the official
    release or a recording, is taken as it is) with the render's seed, source and code."""
    if not (source / "signal").is_dir():
        raise MultimodalError(f"{source}: no signal/ folder of trajectories; give a corpus root "
                              "(`filegram corpus --out DIR` builds one)")
    try:
        info = json.loads((source / "corpus.json").read_text(encoding="utf-8")) if (
            source / "corpus.json").is_file() else {}
    except ValueError as exc:
        raise MultimodalError(f"{source / 'corpus.json'}: not valid JSON ({exc})") from None
    if info.get("setting", "text") != "text":
        raise MultimodalError(f"{source} is already the {info['setting']} setting; give the text corpus")
    return {**info, "setting": SETTING, "render": {"version": BUILD_VERSION, "seed": seed, "source": str(source),
                                                   "source_engine": info.get("engine"), "code": render_code()}}


def render_code() -> str:
    """sha256 (16 hex) of the code that decides a multimodal file's bytes (RENDER_SOURCES; not the import
    closure, which reaches the package's __init__ and so every module it imports)."""
    from ..util.code_closure import PACKAGE, digest

    return digest([p for pattern in RENDER_SOURCES for p in PACKAGE.glob(pattern)])[:16]


def _check_out(out: Path, manifest: dict[str, Any]) -> None:
    path = out / "corpus.json"
    if path.is_file():
        old = json.loads(path.read_text(encoding="utf-8"))
        same = {k: v for k, v in old.items() if k != "render"} == {k: v for k, v in manifest.items() if k != "render"}
        if not same or {k: v for k, v in old.get("render", {}).items() if k != "source"} != {
                k: v for k, v in manifest["render"].items() if k != "source"}:
            raise MultimodalError(f"{out} holds a multimodal build of another corpus, seed or renderer code; "
                                  "give another --out or delete it")
    elif out.exists() and any(out.iterdir()):
        raise MultimodalError(f"{out} is not empty and holds no multimodal corpus.json; give an empty folder")


def default_dir(text_corpus: str | Path) -> Path:
    """Where the multimodal setting of a text corpus lives by default: beside it (data/corpus_multimodal)."""
    text_corpus = Path(text_corpus)
    return text_corpus.with_name(f"{text_corpus.name}_{SETTING}")


def build_multimodal(source: str | Path, out: str | Path, *, seed: int = 0, workers: int | None = None,
                     progress: bool | None = None, only: Iterable[str] | None = None) -> MultimodalReport:
    """The multimodal setting of the text corpus `source`, built (or finished) in `out`. `only`: the
    trajectory ids to render now (a bench run renders what its items read; None: all). A later call renders
    the rest into the same folder: each trajectory's bytes depend only on itself and the seed."""
    source, out = Path(source), Path(out)
    manifest = _manifest(source, seed)
    _check_out(out, manifest)
    signal = out / "signal"
    signal.mkdir(parents=True, exist_ok=True)
    atomic.write_json(out / "corpus.json", manifest)
    for stale in signal.glob(".*"):  # an interrupted worker's temp folder
        shutil.rmtree(stale, ignore_errors=True)
    for name in _TOP_LEVEL:
        if (source / name).is_file():
            shutil.copyfile(source / name, out / name)
    if (source / "truth").is_dir() and not (out / "truth").exists():
        shutil.copytree(source / "truth", out / "truth")
    present = sorted(d for d in (source / "signal").iterdir() if (d / "events.json").is_file())
    if only is not None:
        wanted = set(only)
        if unknown := sorted(wanted - {d.name for d in present}):
            raise MultimodalError(f"{source}: no trajectory {', '.join(unknown[:5])}"
                                  f"{' ...' if len(unknown) > 5 else ''} to render")
        present = [d for d in present if d.name in wanted]
    todo = [d for d in present if not (signal / d.name / "events.json").is_file()]
    total = len(present)
    workers = max(1, min(workers or multiprocessing.cpu_count(), len(todo) or 1))
    bar = progress_bar(total=len(todo), desc="rendering outputs", unit="traj",
                       disable=None if progress is None else not progress)
    documents, characters = 0, Counter()

    def done(names: list[str], lacking: int, lacked: dict[str, int]) -> None:
        nonlocal documents
        bar.update(len(names))
        documents += lacking
        characters.update(lacked)

    _run(todo, out, seed, workers, done)
    bar.close()
    report = _merged_report(signal)
    atomic.write_text(out / REPORT_FILE, report.write_csv())
    lacked = tuple(sorted(characters))
    if documents:
        warnings.warn(f"{out}: {missing_glyphs_line(documents, lacked)}", stacklevel=2)
    return MultimodalReport(out, total, len(todo), report, documents, lacked)


def _run(todo: list[Path], out: Path, seed: int, workers: int, done: Callable[..., None]) -> None:
    chunks = [[str(d) for d in todo[i:i + CHUNK]] for i in range(0, len(todo), CHUNK)]
    for _, result in LocalExecutor("process", workers).imap(_chunk, [(c, str(out), seed) for c in chunks]):
        done(*result)


REPORT_SCHEMA = {"trajectory_id": pl.String, "blob": pl.String, "original_path": pl.String, "path": pl.String,
                 "format": pl.String, "section": pl.Int64, "title": pl.String, "bytes": pl.Int64,
                 "source_words": pl.Int64, "recovered_words": pl.Int64, "source_han": pl.Int64,
                 "recovered_han": pl.Int64, "table_flattened": pl.Boolean,
                 "image_without_text": pl.Boolean, "audio_without_transcript": pl.Boolean}


def _merged_report(signal: Path) -> pl.DataFrame:
    rows = [row for d in sorted(signal.iterdir()) if (d / "media" / RENDERS / "report.json").is_file()
            for row in json.loads((d / "media" / RENDERS / "report.json").read_text(encoding="utf-8"))]
    return pl.DataFrame(rows, schema=REPORT_SCHEMA)


def parse_report(corpus: str | Path) -> pl.DataFrame:
    """A multimodal corpus' parse report (one row per rendered file)."""
    path = Path(corpus) / REPORT_FILE
    if not path.is_file():
        raise MultimodalError(f"{corpus}: no {REPORT_FILE}; is it a multimodal corpus (`filegram corpus "
                              "--setting multimodal`)?")
    return pl.read_csv(path, schema=REPORT_SCHEMA)
