"""The fast path of the conversion: `fastparse` records -> the store's columns, as Python lists.

Column by column (a comprehension per field and event type), never a dict per event: 3M events in
seconds. Each column gets what the JSON path's `_row(clean(event))` puts there (frames.py, cleaning.py):
strings and lists of strings lose their sandbox prefix (`anonymise_path`), a reference becomes its
'blobs/..' path, `view_range` becomes view_start / view_end, absent fields are null, and the text a
write or edit left is read from media (through the same anonymisation). tests/test_store.py checks
the two paths give the same rows on a whole corpus and on hand-made edge cases.

`rows` answers None whenever it cannot vouch for a trajectory (a reference it cannot check, a media
file not there): the slow path then decides, with the named errors of the JSON path.
"""

from __future__ import annotations

import os
from collections import defaultdict
from itertools import repeat
from typing import Any

import msgspec

from ..traces.cleaning import anonymise_path
from ..traces.frames import COLUMN_MAPPINGS, REF_COLUMNS
from ..traces.schema import EVENT_CATEGORY, EVENT_FIELDS, MEDIA_REF_FIELDS, RETAINED_EVENT_TYPES
from . import fastparse

UNSET = msgspec.UNSET
_TYPE_NAME = {cls: name for name, cls in fastparse.RECORD_TYPES.items()}
_REF_FIELDS = {name: tuple(f for f in MEDIA_REF_FIELDS if f in cls.__struct_fields__)
               for name, cls in fastparse.RECORD_TYPES.items()}
_CONTENT_FIELD = {"file_write": "media_ref", "file_edit": "media_ref_new"}  # what events_frame reads as content
_BEHAVIOURAL = frozenset(RETAINED_EVENT_TYPES)


def _how(kind: str, name: str, column: str) -> str:
    if name == "view_range":
        return "view"
    if column in REF_COLUMNS:
        return "ref"
    base = EVENT_FIELDS[kind][name].strip("~?")
    return {"str": "text", "list": "list"}.get(base, "plain")


# per behavioural type: (field, column, how) for every field a record of it may carry
PLAN: dict[str, tuple[tuple[str, str, str], ...]] = {
    kind: tuple((name, COLUMN_MAPPINGS[kind].get(name, ""), _how(kind, name, COLUMN_MAPPINGS[kind].get(name, "")))
                for name in names) for kind, names in fastparse.BEHAVIOURAL_FIELDS.items()}


def check_plan() -> None:
    """Every field of a behavioural event has a frame column (else the fast path would owe `extra`)."""
    for kind, plan in PLAN.items():
        missing = [name for name, column, how in plan if not column and how != "view"]
        if missing:
            raise AssertionError(f"{kind}: fields without a frame column: {missing}")


check_plan()


class Media:
    """The media files of one trajectory, listed once (not one stat per reference)."""

    def __init__(self, root: str):
        self.root = root
        self._files: set[str] | None = None

    def has(self, rel: str) -> bool:
        if self._files is None:
            self._files = set()
            for sub in ("blobs", "diffs"):
                try:
                    with os.scandir(f"{self.root}/{sub}") as entries:
                        self._files.update(f"{sub}/{e.name}" for e in entries if e.is_file())
                except (FileNotFoundError, NotADirectoryError):
                    pass
        return rel in self._files

    def text(self, rel: str) -> str:
        """The file's text as `Path.read_text(encoding="utf-8")` gives it (universal newlines)."""
        fd = os.open(f"{self.root}/{rel}", os.O_RDONLY)
        try:
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(fd)
        text = b"".join(chunks).decode("utf-8")
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def ref_path(value: Any) -> str | None:
    """The media path of a reference this path can vouch for, else None (a bare hash; a path clean() would
    rewrite before reading it)."""
    if isinstance(value, fastparse.PathRef):
        return value.path
    return value if isinstance(value, str) and "/" in value and "sandbox" not in value else None


def _checked_refs(records: list[Any], kinds: list[str], media: Media) -> dict[tuple[int, str], str] | None:
    """(event position, field) -> media path for every reference; None if one cannot be vouched for."""
    refs = {}
    for i, kind in enumerate(kinds):
        names = _REF_FIELDS[kind]
        if not names:
            continue
        record = records[i]
        for name in names:
            value = getattr(record, name)
            if value is None or value is UNSET:
                continue
            rel = ref_path(value)
            if rel is None or not media.has(rel):
                return None
            refs[i, name] = rel
    return refs


class Anonymiser:
    """`anonymise_path` with a memo: a trajectory names the same paths again and again."""

    def __init__(self):
        self._seen: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        if "sandbox" not in text:
            return text
        found = self._seen.get(text)
        if found is None:
            found = self._seen[text] = anonymise_path(text)[0]
        return found


def _place(columns: dict[str, list], column: str, positions: list[int], values: list, n: int) -> None:
    """`values` at rows `positions` of the full-length `column` (null elsewhere; a later field overwrites)."""
    if len(positions) == n:
        columns[column] = values
        return
    target = columns.get(column)
    if target is None:
        target = columns[column] = [None] * n
    for j, value in zip(positions, values, strict=True):
        target[j] = value


class FastRows:
    """A part's rows from fast-path trajectories: raw columns as they come, behavioural columns at the end,
    field by field over every event of a type at once (few, long comprehensions)."""

    def __init__(self):
        self.raw: dict[str, list] = {c: [] for c in ("trajectory_id", "event_index", "event_type", "timestamp",
                                                     "event_id", "session_id", "profile_id")}
        self.envelope: dict[str, list] = {c: [] for c in ("trajectory_id", "task_id", "event_index", "profile_id",
                                                          "session_id", "event_id", "event_type", "category",
                                                          "timestamp", "content")}
        self.records: list[Any] = []
        self.anonymise = Anonymiser()

    def add(self, tid: str, profile_id: str | None, task_id: str | None, records: list[Any],
            media_root: str) -> int | None:
        """Take one trajectory's decoded events; None (nothing taken) when it cannot vouch for them, else how
        many behavioural events it has."""
        kinds = [_TYPE_NAME[type(r)] for r in records]
        media = Media(media_root)
        refs = _checked_refs(records, kinds, media)
        if refs is None:
            return None
        picked = [i for i, k in enumerate(kinds) if k in _BEHAVIOURAL]
        contents = [refs.get((i, _CONTENT_FIELD.get(kinds[i], ""))) for i in picked]
        contents = [None if rel is None else self.anonymise(media.text(rel)) for rel in contents]  # may raise
        n, m = len(records), len(picked)
        raw = self.raw
        raw["trajectory_id"].extend(repeat(tid, n))
        raw["event_index"].extend(range(n))
        raw["event_type"].extend(kinds)
        raw["timestamp"].extend([r.timestamp for r in records])
        raw["event_id"].extend([r.event_id for r in records])
        raw["session_id"].extend([None if (v := r.session_id) is UNSET else v for r in records])
        raw["profile_id"].extend([None if (v := r.profile_id) is UNSET else v for r in records])
        recs = [records[i] for i in picked]
        env = self.envelope
        env["trajectory_id"].extend(repeat(tid, m))
        env["task_id"].extend(repeat(task_id, m))
        env["event_index"].extend(range(m))
        env["profile_id"].extend([(None if (v := r.profile_id) is UNSET else v) or profile_id for r in recs])
        env["session_id"].extend([None if (v := r.session_id) is UNSET else v for r in recs])
        env["event_id"].extend([r.event_id for r in recs])
        env["event_type"].extend([kinds[i] for i in picked])
        env["category"].extend([EVENT_CATEGORY[kinds[i]] for i in picked])
        env["timestamp"].extend([r.timestamp for r in recs])
        env["content"].extend(contents)
        self.records.extend(recs)
        return m

    def event_frame(self, schema: dict[str, Any]) -> Any:
        """The behavioural events taken so far in `schema`'s columns (what `_row(clean(e))` gives): the envelope as
        gathered; each event type's fields read over all its events at once (a comprehension per field) and put
        at their rows in full-length columns; one frame at the end (no per-type frames to join)."""
        import polars as pl

        n = len(self.records)
        columns: dict[str, list] = dict(self.envelope)
        by_kind: dict[str, list[int]] = defaultdict(list)
        for j, kind in enumerate(self.envelope["event_type"]):
            by_kind[kind].append(j)
        for kind, positions in by_kind.items():
            group = [self.records[j] for j in positions]
            for name, column, how in PLAN[kind]:
                values = [None if (v := getattr(r, name)) is UNSET else v for r in group]
                if how == "view":
                    _place(columns, "view_start", positions, [None if v is None else v[0] for v in values], n)
                    _place(columns, "view_end", positions, [None if v is None else v[1] for v in values], n)
                else:
                    _place(columns, column, positions, self._cleaned(values, how), n)
        frame = pl.DataFrame({c: columns[c] for c in schema if c in columns},
                             schema={c: t for c, t in schema.items() if c in columns}, strict=False)
        return frame.select(pl.col(c) if c in columns else pl.lit(None, t).alias(c) for c, t in schema.items())

    def _cleaned(self, values: list, how: str) -> list:
        """What clean() does to a field's values (a vouched reference: nothing but its path)."""
        anonymise = self.anonymise
        if how == "text":  # most values name no sandbox: no call for them
            return [v if v is None or "sandbox" not in v else anonymise(v) for v in values]
        if how == "list":  # list[str] (fastparse): _anonymise_value's rule
            return [None if v is None else [anonymise(x) for x in v] for v in values]
        if how == "ref":
            return [v.path if isinstance(v, fastparse.PathRef) else v for v in values]
        return values
