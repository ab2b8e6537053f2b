"""Bench items on disk: the release's all-string QA rows <-> `Item`, tolerant of the official bank's forms.

    write_items(items, "data/bench/items.parquet")   # atomic; the same items give the same bytes
    items = load_items(path)                         # ours, or the official bank: a .parquet / .jsonl / .json
                                                     # file, or a folder of them (e.g. T1_understanding.parquet)
    summary(items)                                   # counts and the position of the correct answer
    paper_comparison(items)                          # ours vs the paper's count, per sub-task

`to_frame` writes the release schema (spec 9.3): every column a string, `input_trajectories`,
`choices` and `metadata` as JSON (sorted keys, non-ASCII kept), rows in the given order. Reading
(`from_frame`, `load_items`) accepts the other spellings the published bank may use:

- choices: a JSON list, a Python-literal list, or newline-separated lines "A. ..." ("A)", "(A)" too);
  options that all carry their own letters in order ("A. x", "B. y") lose those prefixes.
- correct (multiple choice): a letter ("B", "b", "(B)", "B.", "B) <option text>"), the option's text
  (exact, else ignoring case and spacing), or an index. Index base is decided per file: 1-based
  ("1" = A), unless some row of the file answers "0", then 0-based. A number that is also an option's
  text counts as that text, unless the file answers other rows by index. Stored as the letter.
  Free-form items (no choices) keep `correct` as the reference text.
- input_trajectories: a JSON / Python list, a comma-separated string, or one id.
- metadata: a JSON object, or empty. Columns beyond the 11 are kept in `metadata` under their name.

Unknown track / sub_track / channel values are kept as they are. An empty question_id, a duplicate
question_id, an empty question, an answer that is not one of the options and a missing column raise
`ItemError`, naming the file, the row (0-based position in the file) with its question_id, and the field.
"""

from __future__ import annotations

import ast
import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from ..llm.tasks import LETTERS
from ..util import atomic
from .schema import CHANNELS, FIELDS, SUB_TRACKS, TRACKS, Item

SUFFIXES = (".parquet", ".jsonl", ".json")
# Track 4's items are built apart (bench/track4.py: they are answered from other settings of the corpus)
APART = "not among these items: Track 4 is built apart (`filegram bench build --track4 FILE`)"
# pinned so the bytes do not follow a library default
PARQUET_OPTIONS: dict[str, Any] = {"compression": "zstd", "compression_level": 3, "statistics": True,
                                   "row_group_size": 65536}
_JSON_FIELDS = ("input_trajectories", "choices", "metadata")
_PANDAS_INDEX = re.compile(r"__index_level_\d+__")
_LETTER = re.compile(r"\(?([A-Za-z])\)?[.):]?")
_PREFIXED = re.compile(r"\(?([A-Z])[.):]\)?\s+(.*)", re.S)
_ALL_SPLIT = re.compile(r"all(?:[-_.].*)?")


class ItemError(ValueError):
    """A malformed item row. Attributes: file, row (0-based, or None), question_id, field, reason."""

    def __init__(self, file: str | Path, reason: str, *, row: int | None = None, question_id: str | None = None,
                 field: str | None = None):
        self.file, self.row, self.question_id, self.field, self.reason = str(file), row, question_id, field, reason
        where = self.file
        if row is not None:
            where += f": row {row}" + (f" (question_id {question_id!r})" if question_id else "")
        super().__init__(": ".join([where, *([f"field '{field}'"] if field else []), reason]))


# -- writing --------------------------------------------------------------------------------------------


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def to_frame(items: Iterable[Item]) -> pl.DataFrame:
    """The release's rows: one per item, in order, every column a string."""
    rows = []
    for i, item in enumerate(items):
        row = {name: getattr(item, name) for name in FIELDS}
        for name in _JSON_FIELDS:
            try:
                row[name] = _dumps(list(row[name]) if name != "metadata" else row[name])
            except (TypeError, ValueError) as exc:
                raise ItemError("items", f"not JSON-encodable ({exc})", row=i, question_id=item.question_id,
                                field=name) from None
        rows.append(row)
    return pl.DataFrame(rows, schema=dict.fromkeys(FIELDS, pl.String))


def write_items(items: Iterable[Item], path: str | Path) -> Path:
    """Parquet in the release schema, written atomically; refuses items that would not read back unchanged."""
    items = list(items)
    frame = to_frame(items)
    for i, (item, back) in enumerate(zip(items, from_frame(frame, source=str(path)), strict=True)):
        if item != back:
            name = next(n for n in FIELDS if getattr(item, n) != getattr(back, n))
            raise ItemError(path, f"{getattr(item, name)!r} would read back as {getattr(back, name)!r}", row=i,
                            question_id=item.question_id, field=name)
    buffer = io.BytesIO()
    frame.write_parquet(buffer, **PARQUET_OPTIONS)
    return atomic.write_bytes(path, buffer.getvalue())


# -- reading: one field at a time -----------------------------------------------------------------------


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple, dict)):
        raise ValueError(f"expected a string, got a {type(value).__name__}")
    return str(value)


def _literal(text: str) -> Any:
    """A JSON value, else a Python literal (the bank may hold `str(list)`); ValueError when neither."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise ValueError(f"{text[:80]!r} is neither JSON nor a Python literal") from None


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"expected a list, got {value!r:.80}")
    if any(isinstance(v, (list, tuple, dict)) or v is None for v in value):
        raise ValueError("expected a list of strings")
    return tuple(str(v) for v in value)


def _unletter(options: tuple[str, ...]) -> tuple[str, ...]:
    """Drop "A. " / "(B) " prefixes when every option carries its own letter, in order."""
    matches = [_PREFIXED.fullmatch(o.strip()) for o in options]
    if options and all(m and m.group(1) == LETTERS[i] for i, m in enumerate(matches)):
        return tuple(m.group(2).strip() for m in matches)
    return options


def decode_choices(value: Any) -> tuple[str, ...]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return ()
    if isinstance(value, str):
        text = value.strip()
        value = _literal(text) if text.startswith("[") else [line for line in text.splitlines() if line.strip()]
    options = _unletter(_strings(value))
    if len(options) == 1:
        raise ValueError(f"one option only ({options[0][:80]!r}); a multiple-choice item needs at least 2")
    if any(not o.strip() for o in options):
        raise ValueError("an option is empty")
    return options


def decode_trajectories(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            raise ValueError(f"expected a list of trajectory ids, got {text[:80]!r}")
        if text.startswith("["):
            value = _literal(text)
        else:
            return tuple(part.strip() for part in re.split(r"[,\n]", text) if part.strip())
    return _strings(value)


def decode_metadata(value: Any) -> dict[str, Any]:
    if value is None or (isinstance(value, str) and value.strip() in ("", "null", "None")):
        return {}
    if isinstance(value, str):
        value = _literal(value.strip())
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {value!r:.80}")
    return value


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _by_text(text: str, choices: tuple[str, ...]) -> int | None:
    for key in (lambda s: s.strip(), _norm):
        hits = [i for i, c in enumerate(choices) if key(c) == key(text)]
        if len(hits) == 1:
            return hits[0]
    return None


def decode_correct(value: Any, choices: tuple[str, ...], *, base: int = 1, by_index: bool = False) -> str:
    """The option letter of an answer given as a letter, an option's text or an index (`base` 0 or 1)."""
    text = _text(value).strip()
    n = len(choices)
    span = f"one of the {n} options"
    if not text:
        raise ValueError("empty answer")
    letter = _LETTER.fullmatch(text)
    if letter:
        index = LETTERS.index(letter.group(1).upper())
        if index >= n:
            raise ValueError(f"{text!r} is not {span}")
        return LETTERS[index]
    prefixed = _PREFIXED.fullmatch(text)
    if prefixed and prefixed.group(1) in LETTERS[:n] and _by_text(prefixed.group(2), choices) is not None:
        return prefixed.group(1)
    index = _by_text(text, choices)
    if text.isdigit() and (index is None or by_index):
        index = int(text) - base
        if not 0 <= index < n:
            raise ValueError(f"index {text!r} is not {span} (indices are {base}-based in this file)")
    if index is None:
        raise ValueError(f"{text[:80]!r} is neither an option letter (A-{LETTERS[n - 1]}), an index nor {span}")
    return LETTERS[index]


_DECODERS = {"choices": decode_choices, "input_trajectories": decode_trajectories, "metadata": decode_metadata}


# -- reading: rows --------------------------------------------------------------------------------------


def _answer_form(rows: list[tuple[int, dict[str, Any], tuple[str, ...]]]) -> tuple[int, bool]:
    """(index base, whether the file answers by index): 0-based only when some row answers "0"."""
    numbers = [(str(r["correct"]).strip(), c) for _, r, c in rows if c and r.get("correct") is not None]
    numbers = [(t, c) for t, c in numbers if t.isdigit() and _by_text(t, c) is None]
    return (0 if any(int(t) == 0 for t, _ in numbers) else 1), bool(numbers)


def _first_pass(records: Iterable[tuple[int, Mapping[str, Any]]], source: str, seen: dict[str, str]):
    """Decode every field but `correct` (whose index base depends on the whole file)."""
    out = []
    for i, record in records:
        missing = [f for f in FIELDS if f not in record]
        if missing:
            raise ItemError(source, f"missing fields {missing}", row=i, field=missing[0])
        try:
            qid = _text(record["question_id"]).strip()
        except ValueError as exc:
            raise ItemError(source, str(exc), row=i, field="question_id") from None
        if not qid:
            raise ItemError(source, "empty question_id", row=i, field="question_id")
        if qid in seen:
            raise ItemError(source, f"duplicate question_id (first at {seen[qid]})", row=i, question_id=qid,
                            field="question_id")
        seen[qid] = f"{source}: row {i}"
        decoded: dict[str, Any] = {"question_id": qid}
        for name in FIELDS[1:]:
            try:
                decoded[name] = _DECODERS.get(name, _text)(record[name])
            except ValueError as exc:
                raise ItemError(source, str(exc), row=i, question_id=qid, field=name) from None
        if not decoded["question"].strip():
            raise ItemError(source, "empty question", row=i, question_id=qid, field="question")
        extra = {k: v for k, v in record.items() if k not in FIELDS and not _PANDAS_INDEX.fullmatch(k)}
        decoded["metadata"] = {**extra, **decoded["metadata"]}
        out.append((i, decoded, decoded["choices"]))
    return out


def _decode_rows(records: Iterable[tuple[int, Mapping[str, Any]]], source: str,
                 seen: dict[str, str] | None = None) -> list[Item]:
    rows = _first_pass(records, source, {} if seen is None else seen)
    base, by_index = _answer_form(rows)
    items = []
    for i, row, choices in rows:
        try:
            if choices:
                row["correct"] = decode_correct(row["correct"], choices, base=base, by_index=by_index)
            elif not row["correct"].strip():
                raise ValueError("empty reference answer of a free-form item")
        except ValueError as exc:
            raise ItemError(source, str(exc), row=i, question_id=row["question_id"], field="correct") from None
        items.append(Item(**row))
    return items


def from_frame(frame: pl.DataFrame, *, source: str = "<frame>") -> list[Item]:
    """Items from release rows (any of the forms in the module docstring); `source` names them in errors."""
    missing = [f for f in FIELDS if f not in frame.columns]
    if missing:
        raise ItemError(source, f"missing columns {missing}; item rows have {', '.join(FIELDS)}")
    return _decode_rows(enumerate(frame.iter_rows(named=True)), source)


def _text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ItemError(path, f"not UTF-8 text (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r})") from None


def _jsonl_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    lines = [line for line in _text_of(path).splitlines() if line.strip()]
    for i, line in enumerate(lines):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ItemError(path, f"not valid JSON ({exc.msg})", row=i) from None
        if not isinstance(record, dict):
            raise ItemError(path, "not a JSON object", row=i)
        yield i, record


def _records(path: Path) -> Iterable[tuple[int, Mapping[str, Any]]]:
    if path.suffix == ".jsonl":
        return _jsonl_records(path)
    if path.suffix == ".json":
        try:
            data = json.loads(_text_of(path))
        except json.JSONDecodeError as exc:
            raise ItemError(path, f"not valid JSON ({exc.msg}, line {exc.lineno} column {exc.colno})") from None
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise ItemError(path, "expected a JSON list of item objects")
        return enumerate(data)
    try:
        frame = pl.read_parquet(path)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise ItemError(path, f"not a readable parquet file ({str(exc).splitlines()[0]})") from None
    missing = [f for f in FIELDS if f not in frame.columns]
    if missing:
        raise ItemError(path, f"missing columns {missing}; item rows have {', '.join(FIELDS)}")
    return enumerate(frame.iter_rows(named=True))


def item_files(path: str | Path) -> list[Path]:
    """The item files `load_items(path)` reads, in order. A folder holding the release's `all` split next to
    the per-track splits (all.parquet, T1_understanding.parquet, ...) is read through `all` alone."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    if path.is_file():
        if path.suffix not in SUFFIXES:
            raise ItemError(path, f"not an item file (expected {', '.join(SUFFIXES)})")
        return [path]
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in SUFFIXES
                   and not any(part.startswith(".") for part in p.relative_to(path).parts))
    if not files:
        raise ItemError(path, f"no item files ({', '.join(SUFFIXES)}) in this folder")
    whole = [p for p in files if _ALL_SPLIT.fullmatch(p.stem)]
    return whole or files


def load_items(path: str | Path) -> list[Item]:
    """Items from our parquet or the official bank (a file or a folder of split files), in file order."""
    seen: dict[str, str] = {}
    return [item for file in item_files(path) for item in _decode_rows(_records(file), str(file), seen)]


# -- counts ---------------------------------------------------------------------------------------------

_ORDER = {"track": {t: i for i, t in enumerate(TRACKS)}, "sub_track": {s: i for i, s in enumerate(SUB_TRACKS)},
          "channel": {c: i for i, c in enumerate(CHANNELS)}}


def _paper_order(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    ranks = [pl.col(k).replace_strict(_ORDER[k], default=len(_ORDER[k]), return_dtype=pl.Int64).alias(f"_{k}")
             for k in keys if k in _ORDER]
    by = [x for k in keys for x in ((f"_{k}", k) if k in _ORDER else (k,))]
    return frame.with_columns(ranks).sort(by).drop(f"_{k}" for k in keys if k in _ORDER)


def summary(items: Iterable[Item], by: Iterable[str] = ("track", "sub_track", "channel", "options")) -> pl.DataFrame:
    """Items per group (`options` = number of choices, 0 free-form), and the share of the group's
    multiple-choice items whose answer is A, B, C, ... (null for a group of free-form items)."""
    keys = list(by)
    items = list(items)
    frame = pl.DataFrame({"track": [i.track for i in items], "sub_track": [i.sub_track for i in items],
                          "sub_class": [i.sub_class for i in items], "channel": [i.channel for i in items],
                          "options": [len(i.choices) for i in items],
                          "correct": [i.correct if i.is_mcq else None for i in items]},
                         schema={"track": pl.String, "sub_track": pl.String, "sub_class": pl.String,
                                 "channel": pl.String, "options": pl.Int64, "correct": pl.String})
    mcq = (pl.col("options") > 0).sum()
    letters = LETTERS[:max(frame["options"].max() or 0, 0)]
    shares = [pl.when(mcq > 0).then((pl.col("correct") == x).sum() / mcq).alias(x) for x in letters]
    counts = frame.group_by(keys).agg(pl.len().cast(pl.Int64).alias("items"), *shares)
    return _paper_order(counts, keys)


def paper_comparison(items: Iterable[Item]) -> pl.DataFrame:
    """One row per sub-task of the paper (Table 3's footnote) and per other sub_track found in `items`:
    track, sub_track, abbr (paper column), paper_count, ours (null for a Track 4 sub-task absent from
    `items`), note.
    Items are matched to the paper's sub-tasks by `sub_track` alone (the bank may spell tracks otherwise)."""
    ours: dict[str, int] = {}
    track_of: dict[str, str] = {}
    for item in items:
        ours[item.sub_track] = ours.get(item.sub_track, 0) + 1
        track_of.setdefault(item.sub_track, item.track)
    apart = lambda name, track: track == "T4_multimodal" and name not in ours  # noqa: E731
    rows = [{"track": track, "sub_track": name, "abbr": abbr, "paper_count": count,
             "ours": None if apart(name, track) else ours.get(name, 0), "note": APART if apart(name, track) else ""}
            for name, (track, abbr, count, _) in SUB_TRACKS.items()]
    for name in SUB_TRACKS:
        ours.pop(name, None)
    rows += [{"track": track_of[name], "sub_track": name, "abbr": "", "paper_count": None, "ours": n,
              "note": "not a paper sub-task"} for name, n in sorted(ours.items())]
    return pl.DataFrame(rows, schema={"track": pl.String, "sub_track": pl.String, "abbr": pl.String,
                                      "paper_count": pl.Int64, "ours": pl.Int64, "note": pl.String})
