"""The project's JSON data files (personas, tasks): read one, then parse its list of records by id.

Errors name the file, the record's index and the field, like the trajectory loader's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

R = TypeVar("R")


def read_document(path: str | Path | None, packaged: str, error: type[ValueError]) -> tuple[Any, str]:
    """The parsed JSON of `path`, or of the packaged `data/<packaged>` when path is None, and its display name."""
    if path is None:
        text = resources.files("filegram_kit").joinpath("data", packaged).read_text(encoding="utf-8")
        return json.loads(text), f"filegram_kit/data/{packaged}"
    try:
        return json.loads(Path(path).read_text(encoding="utf-8")), str(path)
    except json.JSONDecodeError as exc:
        raise error(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None


def parse_records(doc: Any, name: str, key: str, parse: Callable[[Any, str], R], *, noun: str, id_field: str,
                  error: type[ValueError]) -> dict[str, R]:
    """`doc[key]` parsed record by record (`parse(raw, where)`), keyed by `.id`; duplicate ids are errors."""
    if not isinstance(doc, dict) or not isinstance(doc.get(key), list):
        raise error(f"{name}: expected an object with a '{key}' list")
    out: dict[str, R] = {}
    for i, raw in enumerate(doc[key]):
        record = parse(raw, f"{name}: {noun} {i}")
        if record.id in out:
            raise error(f"{name}: {noun} {i}: field '{id_field}': duplicate id {record.id}")
        out[record.id] = record
    return out
