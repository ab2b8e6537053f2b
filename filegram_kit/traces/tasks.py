"""The 32 tasks of paper Table 10 as data, with the project's own English and Chinese prompts.

`dims_full` are the dimensions the paper found activated in >= 70% of personas, `dims_partial`
those at 30-69% (project decision 3: the measured dims, not the release's design-time ones).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from .datafiles import parse_records, read_document
from .schema import DIMENSION_CODES, Task

DATA_FILE = "tasks.json"
TASK_TYPES = ("understand", "create", "organize", "synthesize", "iterate", "maintain")


class TaskDataError(ValueError):
    """A tasks file that does not follow the schema; the message names file, task and field."""


def normalize_task_id(value: str | int) -> str:
    """'T-05', 't05', 'T5', 'task 5' or 5 -> 'T-05'."""
    match = re.fullmatch(r"(?:t(?:ask)?[-_ ]?)?0*(\d{1,3})", str(value).strip(), flags=re.IGNORECASE)
    if not match:
        raise ValueError(f"not a task id: {value!r} (expected e.g. 'T-05')")
    return f"T-{int(match.group(1)):02d}"


def _parse_task(raw: object, where: str) -> Task:
    if not isinstance(raw, dict):
        raise TaskDataError(f"{where}: expected an object, got {type(raw).__name__}")
    need = {"task_id": str, "type": str, "multimodal": bool, "description": str, "dims_full": list,
            "dims_partial": list, "input_files": dict, "prompt_en": str, "prompt_zh": str}
    for key, kind in need.items():
        if not isinstance(raw.get(key), kind):
            raise TaskDataError(f"{where}: field '{key}' must be {kind.__name__}, got {raw.get(key)!r:.60}")
    if raw["type"] not in TASK_TYPES:
        raise TaskDataError(f"{where}: field 'type': {raw['type']!r} is not one of {TASK_TYPES}")
    dims = raw["dims_full"] + raw["dims_partial"]
    if any(d not in DIMENSION_CODES for d in dims) or len(set(dims)) != len(dims):
        raise TaskDataError(f"{where}: fields 'dims_full'/'dims_partial' must be distinct codes A-F, got {dims}")
    counts = raw["input_files"]
    if not all(isinstance(v, int) and v > 0 for v in counts.values()):
        raise TaskDataError(f"{where}: field 'input_files' needs positive integer counts, got {counts}")
    return Task(normalize_task_id(raw["task_id"]), raw["type"], raw["multimodal"], raw["description"],
                tuple(raw["dims_full"]), tuple(raw["dims_partial"]), dict(counts), raw["prompt_en"], raw["prompt_zh"])


def _parse_document(doc: object, name: str) -> dict[str, Task]:
    return parse_records(doc, name, "tasks", _parse_task, noun="task", id_field="task_id", error=TaskDataError)


@cache
def _paper_tasks() -> tuple[tuple[str, Task], ...]:
    return tuple(_parse_document(*read_document(None, DATA_FILE, TaskDataError)).items())


def load_tasks(path: str | Path | None = None) -> dict[str, Task]:
    """Tasks by id: the paper's 32 by default, or those of a file in the same format."""
    if path is None:
        return dict(_paper_tasks())
    return _parse_document(*read_document(path, DATA_FILE, TaskDataError))


def get_task(task_id: str | int) -> Task:
    tasks = load_tasks()
    tid = normalize_task_id(task_id)
    if tid not in tasks:
        raise KeyError(f"unknown task {task_id!r}; known: {tasks[next(iter(tasks))].id}..{list(tasks)[-1]}")
    return tasks[tid]
