"""Property-based fuzzing of the real-trace importers: whatever the input, either a result or an error that
names the file, the line and (for a row that is an object) the field; with errors="collect" a bad row never
raises. 1,000 generated inputs per importer, derandomised (the same inputs on every run)."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from filegram_kit.record import ObservationError, import_event_log, import_shell_history
from filegram_kit.record.commands import SESSION_END, SESSION_START, import_command_stream
from filegram_kit.record.eventlog import KNOWN_FIELDS
from filegram_kit.record.journal import JOURNAL_VERSION, read_journal, recover

from .fuzz import FUZZ, values

# values a field's parser accepts, so that rows get past the first field and into the later checks
plausible = {"time": st.one_of(st.integers(0, 2 * 10 ** 12), st.just("2024-03-01T09:30:00Z")),
             "op": st.sampled_from(["write", "read", "ls", "mv", "cp", "rm", "mkdir", "search", "baseline"]),
             "path": st.sampled_from(["a.md", "dir/b.txt", "/abs/x", "../up", "", "d/"]),
             "dest": st.sampled_from(["c.md", "dir/", "../out"]), "is_dir": st.sampled_from([True, "0", "yes"]),
             "size": st.sampled_from([0, 10, -1, "12", 1.5]), "content": st.text(max_size=20),
             "search_type": st.sampled_from(["grep", "glob", "regex"]), "matches": st.sampled_from([["a.md"], "a;b"]),
             "files_listed": st.sampled_from([3, "x", -2])}
rows = st.fixed_dictionaries({}, optional={name: st.one_of(plausible.get(name, values), values)
                                           for name in KNOWN_FIELDS}) | values


def _file(suffix: str, data: bytes) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="fuzz-"))
    path = folder / f"input{suffix}"
    path.write_bytes(data)
    return path


def _named(err: ObservationError, path: Path, *, row_is_object: bool | None = None) -> None:
    assert err.where == str(path), err
    assert err.line is not None, f"no line: {err}"
    if row_is_object:
        assert err.field is not None, f"no field: {err}"


@FUZZ
@given(st.lists(rows, max_size=4), st.sampled_from([".jsonl", ".csv"]))
def test_event_log_rows_are_imported_or_refused_by_file_line_and_field(items, suffix):
    if suffix == ".jsonl":
        data = "\n".join(json.dumps(item) for item in items).encode()
    else:
        keys = {k for i in items if isinstance(i, dict) for k in i}
        header = list(KNOWN_FIELDS[:3]) + sorted(keys - {*KNOWN_FIELDS[:3]})
        lines = [",".join(header)] + [",".join(json.dumps(i.get(k, "")) if isinstance(i, dict) else ""
                                               for k in header) for i in items]
        data = "\n".join(lines).encode()
    path = _file(suffix, data)
    try:
        import_event_log(path)
    except ObservationError as err:
        row = items[err.line - 1] if suffix == ".jsonl" and err.line else None
        _named(err, path, row_is_object=isinstance(row, dict))
    try:
        collected = import_event_log(path, errors="collect")  # never raises for a bad row
    except ObservationError as err:  # ... only for a bad CSV header, which no row can be read without
        assert suffix == ".csv" and err.line == 1, err
        _named(err, path)
        return
    for problem in collected.report.problems:
        _named(problem, path)


@FUZZ
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_shell_history_imports_without_raising(data):
    path = _file("", data)
    result = import_shell_history(path, root=path.parent / "root", home=path.parent)
    assert result.report.observations == len(result.observations)
    assert all(not o.path.startswith("/") and ".." not in o.path.split("/") for o in result.observations)


words = st.sampled_from(["ls", "vi", "make", "cd", "rm", "mv", "cp", "grep", "find", "elm", "", "  ", SESSION_START,
                         SESSION_END, "'ls -l '", "a b c", "\t", "touch", "tee"])


@FUZZ
@given(st.lists(words | st.text(max_size=8), max_size=40), st.integers(1, 7) | st.none())
def test_any_command_stream_keeps_every_command(lines, block):
    path = _file("", "\n".join(lines).encode("utf-8", errors="surrogateescape"))
    result = import_command_stream(path, user="u", block=block)
    text = "\n".join(lines).encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")
    kept = [line for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            if line.strip() and line.strip() not in (SESSION_START, SESSION_END)]
    calls = [e for t in result.trajectories for e in t.events if e.event_type == "tool_call"]
    assert len(calls) == result.report.commands == len(kept)  # nothing dropped
    assert [e["tool_parameters"]["line"] for e in calls] == sorted(e["tool_parameters"]["line"] for e in calls)


header = {"filegram_journal": JOURNAL_VERSION, "folder": "work", "started_ms": 0, "name": "me",
          "idle_gap_ms": 1_800_000, "debounce_ms": 1_000, "seed": 0, "policy": {}}
observation = st.fixed_dictionaries({"kind": st.sampled_from(["write", "read", "mkdir", "move", "delete"]) | values,
                                     "path": st.sampled_from(["a.md", "d/b.md", "/abs", "../x"]) | values,
                                     "time_ms": st.integers(0, 10 ** 13) | values},
                                    optional={"dest": values, "content": values, "size": values, "is_dir": values})
journal_lines = st.lists(observation.map(json.dumps) | st.binary(max_size=20).map(lambda b: b.decode("latin-1")),
                         max_size=4)
headers = st.fixed_dictionaries({k: st.just(v) if k in ("filegram_journal", "folder", "started_ms", "policy")
                                 else st.just(v) | values for k, v in header.items()})


@settings(FUZZ, max_examples=1000)
@given(headers, journal_lines, st.booleans())
def test_a_journal_is_recovered_or_refused_by_file_line_and_field(head, lines, torn):
    out = Path(tempfile.mkdtemp(prefix="fuzz-"))
    (out / ".journal").mkdir()
    path = out / ".journal" / "rec-1.jsonl"
    text = "\n".join([json.dumps(head), *lines]) + ("" if torn else "\n")
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            read_journal(path)
            recover(out)
        except ObservationError as err:
            _named(err, path)
