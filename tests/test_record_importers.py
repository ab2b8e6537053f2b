"""Shell history and event log importers -> Observations.

Every expected observation below is written by hand from the rules (FILEGRAM.md 4.3 bash rules plus the
importers' documented reads/searches), against small folders and history files made in the test.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from filegram_kit.record.eventlog import import_event_log
from filegram_kit.record.observations import Observation, ObservationError
from filegram_kit.record.shell import import_shell_history

T0 = 1_700_000_000_000  # epoch ms of the first recorded command in most histories below


def make_tree(root: Path, entries: list[str]) -> Path:
    """Files ("a/b.md") and directories ("a/") under root."""
    root.mkdir(parents=True, exist_ok=True)
    for entry in entries:
        target = root / entry
        if entry.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("x\n")
    return root


def ob(kind, path, time_ms, line, command, *, source="bash", synthesised=False, extra=None, **fields):
    """The observation the importer should make for one sub-command."""
    details = {"command": command, "line": line, **({"time_synthesised": True} if synthesised else {}),
               **(extra or {})}
    return Observation(kind, path, time_ms, source=source, extra=details, **fields)


def history(tmp_path: Path, text: str, name: str = "history") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def brief(observations):
    """(kind, path, dest, history line) per observation, for tests about paths rather than details."""
    return [(o.kind, o.path, o.dest, o.extra["line"]) for o in observations]


# -- shell: formats and times -----------------------------------------------------------------------


def test_plain_bash_history_gets_evenly_spaced_times_from_start_ms(tmp_path):
    root = make_tree(tmp_path / "proj", ["readme.md", "notes/todo.md", "src/", ".hidden"])
    path = history(tmp_path, "ls\ncat notes/todo.md\nmkdir drafts\ngit status\n")
    result = import_shell_history(path, root=root, home=tmp_path, start_ms=T0, spacing_ms=5_000)
    assert result.observations == [
        ob("browse", ".", T0, 1, "ls", synthesised=True, files_listed=3),  # readme.md, notes, src (not .hidden)
        ob("read", "notes/todo.md", T0 + 5_000, 2, "cat notes/todo.md", synthesised=True),
        ob("mkdir", "drafts", T0 + 10_000, 3, "mkdir drafts", synthesised=True, is_dir=True),
    ]
    report = result.report
    assert (report.shell, report.commands, report.subcommands, report.observations) == ("bash", 4, 4, 3)
    assert report.times_synthesised == 4
    assert report.skipped == Counter({"no file effect": 1})
    assert report.unmapped == Counter({"git": 1})


def test_default_start_is_zero_and_spacing_ten_seconds(tmp_path):
    root = make_tree(tmp_path / "proj", ["a.md"])
    result = import_shell_history(history(tmp_path, "cat a.md\n\ncat a.md\n"), root=root, home=tmp_path)
    assert [(o.time_ms, o.extra["line"]) for o in result.observations] == [(0.0, 1), (10_000.0, 3)]


def test_bash_histtimeformat_times_and_a_line_without_one(tmp_path):
    root = make_tree(tmp_path / "proj", ["readme.md", "notes/todo.md", "notes/old/"])
    text = ("#1700000000\ncd notes\n#1700000060\nvim todo.md\nless ../readme.md\n"
            "#1700000120\nrm -r old/ && touch new.md\n")
    result = import_shell_history(history(tmp_path, text), root=root, home=tmp_path)
    assert result.observations == [
        ob("read", "notes/todo.md", T0 + 60_000, 4, "vim todo.md", extra={"editor": "vim"}),
        ob("read", "readme.md", T0 + 70_000, 5, "less ../readme.md", synthesised=True),  # last time + 10 s
        ob("delete", "notes/old", T0 + 120_000, 7, "rm -r old/", is_dir=True),  # -r and a trailing slash
        ob("write", "notes/new.md", T0 + 120_000, 7, "touch new.md", size=0),  # new in the stream
    ]
    assert result.report.shell == "bash" and result.report.times_synthesised == 1


def test_untimed_lines_before_the_first_timestamp_start_at_start_ms(tmp_path):
    root = make_tree(tmp_path / "proj", ["a.md"])
    text = "cat a.md\ncat a.md\n#1700000000\ncat a.md\n"
    result = import_shell_history(history(tmp_path, text), root=root, home=tmp_path, start_ms=500, spacing_ms=1)
    assert [o.time_ms for o in result.observations] == [500.0, 501.0, float(T0)]


def test_zsh_extended_history_with_a_multiline_command_is_detected(tmp_path):
    home = tmp_path / "home"
    root = make_tree(home / "proj", ["readme.md", "archive/"])
    raw = (b": 1700000000:0;cd ~/proj\n"
           b": 1700000005:2;for f in a.md b.md; do\\\nmv $f archive/\\\ndone\n"
           b": 1700000010:0;cp readme.md readme.md.bak\n"
           b": 1700000020:0;cat voil\xc3\x83\x80.md\n")  # zsh metafies the 0xa0 of "a-grave" as 0x83 0x80
    (tmp_path / "zhist").write_bytes(raw)
    result = import_shell_history(tmp_path / "zhist", root=root, home=home)
    assert result.observations == [
        ob("copy", "readme.md", T0 + 10_000, 5, "cp readme.md readme.md.bak", source="zsh", dest="readme.md.bak"),
        ob("read", "voil\u00e0.md", T0 + 20_000, 6, "cat voil\u00e0.md", source="zsh"),
    ]
    report = result.report
    assert (report.shell, report.commands, report.times_synthesised, report.replaced_lines) == ("zsh", 4, 0, 0)
    # `for ...` has no file effect; `mv $f archive/` cannot be expanded; `done` is no command at all
    assert report.skipped == Counter({"no file effect": 1, "variable not expanded": 1})
    assert report.unmapped == Counter({"for": 1})


def test_bytes_that_are_not_utf8_are_replaced_and_counted(tmp_path):
    root = make_tree(tmp_path / "proj", [])
    (tmp_path / "h").write_bytes(b"cat caf\xe9.md\ncat ok.md\n")
    result = import_shell_history(tmp_path / "h", root=root, home=tmp_path, shell="bash")
    assert [o.path for o in result.observations] == ["caf\ufffd.md", "ok.md"]
    assert result.report.replaced_lines == 1


def test_missing_history_file_names_the_file(tmp_path):
    with pytest.raises(ObservationError, match="nope_history.*cannot read"):
        import_shell_history(tmp_path / "nope_history", root=tmp_path)
    with pytest.raises(ValueError, match="shell must be"):
        import_shell_history(tmp_path / "nope_history", root=tmp_path, shell="fish")


# -- shell: splitting and redirections --------------------------------------------------------------


def test_compound_commands_pipes_and_redirections(tmp_path):
    root = make_tree(tmp_path / "proj", ["a.md", "b.md", "README.md", "notes/todo.md", "src/app.py"])
    text = ("cat a.md b.md | grep -n TODO > todo.txt; wc -l < notes/todo.md && echo done >> log.txt || true\n"
            "sort a.md 2>/dev/null | tee sorted.txt\n"
            'grep -rn "def main" src && rg TODO notes/todo.md README.md\n')
    result = import_shell_history(history(tmp_path, text), root=root, home=tmp_path, start_ms=T0)
    t1, t2, t3 = T0, T0 + 10_000, T0 + 20_000
    s = {"synthesised": True}
    assert result.observations == [
        ob("read", "a.md", t1, 1, "cat a.md b.md", **s),
        ob("read", "b.md", t1, 1, "cat a.md b.md", **s),
        ob("write", "todo.txt", t1, 1, "grep -n TODO > todo.txt", extra={"redirect": ">"}, **s),
        ob("read", "notes/todo.md", t1, 1, "wc -l < notes/todo.md", **s),
        ob("write", "log.txt", t1, 1, "echo done >> log.txt", extra={"redirect": ">>"}, **s),
        ob("write", "sorted.txt", t2, 2, "tee sorted.txt", extra={"redirect": "tee"}, **s),
        ob("search", "src", t3, 3, "grep -rn 'def main' src", query="def main", search_type="grep", **s),
        ob("search", "notes/todo.md", t3, 3, "rg TODO notes/todo.md README.md", query="TODO", search_type="grep",
           matched=("notes/todo.md", "README.md"), **s),
    ]
    # grep fed by a pipe and wc fed by `<` read their input, not files; echo, true and sort are not modelled
    assert result.report.skipped == Counter({"no file effect": 5})
    assert result.report.unmapped == Counter({"echo": 1, "true": 1, "sort": 1})
    assert result.report.subcommands == 9


def test_wrappers_globs_and_unparsable_quotes(tmp_path):
    root = make_tree(tmp_path / "proj", ["a.md", "readme.md", "notes/todo.md"])
    text = ("rm *.log\n"
            "cat notes/*.md readme.md\n"
            'echo "it\'s\n'
            "sudo -u www rm -f cache.db\n"
            "env FOO=1 cat a.md\n"
            "LANG=C command grep -l x notes/todo.md\n"
            "time nohup cp a.md b.md &\n"
            "command -v ls\n")
    result = import_shell_history(history(tmp_path, text), root=root, home=tmp_path)
    assert brief(result.observations) == [
        ("read", "readme.md", None, 2),
        ("delete", "cache.db", None, 4),
        ("read", "a.md", None, 5),
        ("search", "notes/todo.md", None, 6),
        ("copy", "a.md", "b.md", 7),
    ]
    assert result.observations[1].extra["command"] == "sudo -u www rm -f cache.db"
    assert result.observations[3].matched == ("notes/todo.md",) and result.observations[3].query == "x"
    assert result.report.skipped == Counter({"glob not expanded": 2, "unparsable": 1})
    assert result.report.commands == 8


# -- shell: working directory -------------------------------------------------------------------------


def test_cd_tracking_with_dash_home_pushd_popd_and_lost_cwd(tmp_path):
    home = tmp_path / "home"
    root = make_tree(home / "proj", ["notes/todo.md", "readme.md", "src/"])
    text = "\n".join([
        "cd ~/proj/notes", "cat todo.md", "cd /etc", "cat hosts", "cd -", "ls", "cd", "cat proj/readme.md",
        "pushd proj/src", "touch main.py", "popd", "cat proj/readme.md", "cd $WORK", "cat x.md", "cd ~/proj",
        "cat ~/proj/readme.md ~/.bashrc", "cd ../other", "cat ../proj/readme.md"]) + "\n"
    result = import_shell_history(history(tmp_path, text), root=root, home=home)
    assert brief(result.observations) == [
        ("read", "notes/todo.md", None, 2),
        ("browse", "notes", None, 6),  # `cd -` came back from /etc
        ("read", "readme.md", None, 8),  # `cd` went home
        ("write", "src/main.py", None, 10),  # pushd into proj/src
        ("read", "readme.md", None, 12),  # popd back home
        ("read", "readme.md", None, 16),  # ~/.bashrc is outside root
        ("read", "readme.md", None, 18),  # cwd outside root, path back inside
    ]
    assert result.observations[1].files_listed == 1
    assert result.observations[3].size == 0
    assert result.report.skipped == Counter({"outside root": 2, "variable not expanded": 1, "unknown cwd": 1})


def test_a_cd_inside_a_subshell_ends_with_it(tmp_path):
    root = make_tree(tmp_path / "proj", ["notes/todo.md", "readme.md"])
    text = "(cd notes && cat todo.md); cat readme.md\nvim $(cd notes; ls)\ncat readme.md\n"
    result = import_shell_history(history(tmp_path, text), root=root, home=tmp_path)
    assert brief(result.observations) == [
        ("read", "notes/todo.md", None, 1),
        ("read", "readme.md", None, 1),
        ("browse", "notes", None, 2),  # the command substitution runs in notes/
        ("read", "readme.md", None, 3),  # ... and the shell is still at the root afterwards
    ]
    assert result.report.skipped == Counter({"variable not expanded": 1})  # vim's argument is `$`


def test_starting_cwd_is_relative_to_root(tmp_path):
    root = make_tree(tmp_path / "proj", ["notes/todo.md"])
    result = import_shell_history(history(tmp_path, "cat todo.md\ncat ../../x\n"), root=root, home=tmp_path,
                                  cwd="notes")
    assert brief(result.observations) == [("read", "notes/todo.md", None, 1)]
    assert result.report.skipped == Counter({"outside root": 1})


# -- shell: the release's organisation rules ----------------------------------------------------------


def test_mkdir_p_yields_missing_parents_once_per_directory(tmp_path):
    root = make_tree(tmp_path / "proj", [])
    text = ("mkdir -p projects/2024/q1\n"
            "mkdir -p projects/2024/q2 projects/2025\n"
            "mkdir -p projects/2024\n"
            "cd projects && mkdir -p 2026/{jan,feb}\n"
            "mkdir -m 755 shared/x\n")
    result = import_shell_history(history(tmp_path, text), root=root, home=tmp_path, start_ms=T0, spacing_ms=1)
    d = {"is_dir": True, "synthesised": True}
    c1, c4 = "mkdir -p projects/2024/q1", "mkdir -p 2026/{jan,feb}"
    assert result.observations == [
        ob("mkdir", "projects", T0, 1, c1, extra={"implied_parent_of": "projects/2024/q1"}, **d),
        ob("mkdir", "projects/2024", T0, 1, c1, extra={"implied_parent_of": "projects/2024/q1"}, **d),
        ob("mkdir", "projects/2024/q1", T0, 1, c1, **d),
        ob("mkdir", "projects/2024/q2", T0 + 1, 2, "mkdir -p projects/2024/q2 projects/2025", **d),
        ob("mkdir", "projects/2025", T0 + 1, 2, "mkdir -p projects/2024/q2 projects/2025", **d),
        ob("mkdir", "projects/2026", T0 + 3, 4, c4, extra={"implied_parent_of": "projects/2026/jan"}, **d),
        ob("mkdir", "projects/2026/jan", T0 + 3, 4, c4, **d),
        ob("mkdir", "projects/2026/feb", T0 + 3, 4, c4, **d),
        # still in projects/ after line 4's cd; the mode is not a path
        ob("mkdir", "projects/shared/x", T0 + 4, 5, "mkdir -m 755 shared/x", **d),
    ]
    assert result.report.skipped == Counter({"directory already exists": 1})


def test_mv_and_cp_destinations_are_resolved_but_rename_vs_move_is_left_to_translate(tmp_path):
    home = tmp_path / "home"
    root = make_tree(home / "proj", ["a.md", "b.md", "c.md", "d.md", "draft.md", "notes/todo.md", "archive/",
                                     "existing_dir/", "newdir/", "albums/photos/", "src/app.py", "data/"])
    text = "\n".join([
        "mv a.md b.md archive",  # several sources: into the directory
        "mv -t archive c.md",
        "mv draft.md final.md",  # same parent: still a "move" here, translate calls it a rename
        "mv notes/todo.md done/",  # trailing slash
        "mv d.md existing_dir",  # a directory now, and d.md was a file
        "mkdir olddir",
        "mv olddir newdir",  # a directory renamed: newdir exists now but holds no olddir
        "mv photos albums",  # albums/photos exists now: moved into albums
        "cp -r src src_backup",
        "cp report.md ~/Desktop/",  # out of root: nothing happens inside
        "mv ~/Downloads/data.csv data/",  # into root from outside: a file appears
        "mv tmp.txt /tmp/",  # out of root: a file disappears
        "cp notes",
    ]) + "\n"
    result = import_shell_history(history(tmp_path, text), root=root, home=home)
    assert brief(result.observations) == [
        ("move", "a.md", "archive/a.md", 1),
        ("move", "b.md", "archive/b.md", 1),
        ("move", "c.md", "archive/c.md", 2),
        ("move", "draft.md", "final.md", 3),
        ("move", "notes/todo.md", "done/todo.md", 4),
        ("move", "d.md", "existing_dir/d.md", 5),
        ("mkdir", "olddir", None, 6),
        ("move", "olddir", "newdir", 7),
        ("move", "photos", "albums/photos", 8),
        ("copy", "src", "src_backup", 9),
        ("write", "data/data.csv", None, 11),
        ("delete", "tmp.txt", None, 12),
    ]
    is_dir = {(o.kind, o.path): o.is_dir for o in result.observations}
    assert is_dir[("move", "olddir")] and is_dir[("move", "photos")] and is_dir[("copy", "src")]
    assert not is_dir[("move", "a.md")] and not is_dir[("move", "draft.md")]
    assert result.observations[10].extra["from_outside"] == f"{home}/Downloads/data.csv"
    assert result.observations[11].extra["moved_outside"] == "/tmp"
    assert result.report.skipped == Counter({"outside root": 1, "missing destination": 1})


def test_deletes_mark_directories_only_when_known(tmp_path):
    root = make_tree(tmp_path / "proj", ["notes/todo.md", "cache/", "empty/"])
    text = "rm -r cache\nrm -r build\nrmdir empty\nrm notes/todo.md\nunlink x.tmp\ngit rm --cached y\ngit rm z.md\n"
    result = import_shell_history(history(tmp_path, text), root=root, home=tmp_path)
    assert [(o.kind, o.path, o.is_dir) for o in result.observations] == [
        ("delete", "cache", True),  # -r on a directory that is there
        ("delete", "build", False),  # -r, but nothing says build was a directory
        ("delete", "empty", True),  # rmdir
        ("delete", "notes/todo.md", False),
        ("delete", "x.tmp", False),
        ("delete", "z.md", False),
    ]
    assert result.report.unmapped == Counter({"git": 1})


# -- shell: reads, browses and searches -----------------------------------------------------------


def test_listings_count_the_entries_of_the_directory_as_it_is_now(tmp_path):
    root = make_tree(tmp_path / "proj", ["notes/todo.md", "notes/.draft.md", "notes/sub/x.md", "src/a.py"])
    text = "ls -la notes\nll notes\ndir notes\ntree -L 1 notes\ntree notes\nls missing\ncode .\n"
    result = import_shell_history(history(tmp_path, text), root=root, home=tmp_path)
    assert [(o.kind, o.path, o.files_listed) for o in result.observations] == [
        ("browse", "notes", 3),  # -a: todo.md, .draft.md, sub
        ("browse", "notes", 3),  # ll is ls -alF
        ("browse", "notes", 2),
        ("browse", "notes", 2),  # one level: todo.md, sub
        ("browse", "notes", 3),  # todo.md, sub, sub/x.md
        ("browse", "missing", None),
        ("browse", ".", 2),  # an editor opening a folder: notes, src
    ]


def test_reads_skip_flag_values_line_numbers_and_directories(tmp_path):
    root = make_tree(tmp_path / "proj", ["a.md", "notes/todo.md"])
    text = ("head -n 20 a.md\ntail -f -- -weird.log\nnano notes/todo.md\nvim +10 a.md\ncat notes\n"
            "code -g a.md:12:3\ncat\n")
    result = import_shell_history(history(tmp_path, text), root=root, home=tmp_path)
    assert [(o.kind, o.path, o.extra.get("editor")) for o in result.observations] == [
        ("read", "a.md", None),
        ("read", "-weird.log", None),
        ("read", "notes/todo.md", "nano"),
        ("read", "a.md", "vim"),
        ("read", "a.md", "code"),
    ]
    assert result.report.skipped == Counter({"directory, not a file": 1, "no file effect": 1})


def test_find_fd_locate_and_file_listings_are_glob_searches(tmp_path):
    root = make_tree(tmp_path / "proj", ["notes/todo.md", "src/a.py"])
    text = ("find . -name \"*.md\"\nfind notes -iname 'todo*' -delete\nfd -e py\nfd todo notes\nlocate budget.xlsx\n"
            "rg --files -g '*.csv'\ngit mv notes/todo.md done.md\n")
    result = import_shell_history(history(tmp_path, text), root=root, home=tmp_path)
    assert [(o.kind, o.path, o.search_type, o.query, o.matched) for o in result.observations[:6]] == [
        ("search", ".", "glob", "*.md", ()),
        ("search", "notes", "glob", "todo*", ()),
        ("search", ".", "glob", "*.py", ()),  # fd [pattern] [path]: no pattern, the extension
        ("search", "notes", "glob", "todo", ()),
        ("search", ".", "glob", "budget.xlsx", ()),
        ("search", ".", "glob", "*.csv", ()),
    ]
    assert brief(result.observations[6:]) == [("move", "notes/todo.md", "done.md", 7)]
    assert result.report.skipped == Counter({"find action not expanded": 1})


def test_report_reads_as_a_summary(tmp_path):
    root = make_tree(tmp_path / "proj", ["a.md"])
    result = import_shell_history(history(tmp_path, "cat a.md\ngit pull\nrm *.tmp\n"), root=root, home=tmp_path)
    text = str(result.report)
    assert "bash history" in text and "3 commands" in text and "1 observations" in text
    assert "3 times synthesised" in text
    assert "glob not expanded 1" in text and "no file effect 1" in text and "git 1" in text


# -- event logs -----------------------------------------------------------------------------------------


def sha16(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def jsonl(tmp_path: Path, rows: list, name: str = "events.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(row if isinstance(row, str) else json.dumps(row) for row in rows) + "\n")
    return path


# 2024-03-01T00:00:00Z is 1709251200 s (2024-01-01 = 1704067200 s, plus 31 + 29 days)
MARCH_1 = 1_709_251_200_000


def test_jsonl_log_with_epoch_and_iso_times_synonyms_and_extra_columns(tmp_path):
    root = tmp_path / "root"
    path = jsonl(tmp_path, [
        {"time": 1700000000, "op": "created", "path": "notes/a.md", "content": "hello", "pid": 42},
        {"time": 1700000001500, "op": "Renamed", "path": f"{root}/notes/a.md", "dest": "notes/b.md"},
        {"time": "2024-03-01T09:30:00+01:00", "op": "list", "path": "notes", "files_listed": 3},
        "",
        {"time": "2024-03-01T08:31:00", "op": "search", "path": ".", "query": "budget", "search_type": "grep",
         "matches": ["notes/b.md", f"{root}/plan.md"]},
        {"time": "1700000100", "op": "dir_create", "path": "archive"},
        {"time": 1700000200.25, "op": "cp", "path": "notes/b.md", "dest": "archive/b.md", "is_dir": "0",
         "size": "5"},
        {"time": 1700000300000, "op": "unlink", "path": "notes/b.md"},
        {"time": 1700000400, "op": "access", "path": "plan.md", "is_dir": False, "line": "kept"},
    ])
    result = import_event_log(path, root=root)
    log = {"source": "log"}
    assert result.observations == [
        Observation("write", "notes/a.md", T0, content="hello", content_hash=sha16("hello"), size=5,
                    extra={"line": 1, "pid": 42}, **log),
        Observation("move", "notes/a.md", T0 + 1_500, dest="notes/b.md", extra={"line": 2}, **log),
        Observation("browse", "notes", MARCH_1 + 8.5 * 3_600_000, files_listed=3, extra={"line": 3}, **log),
        Observation("search", ".", MARCH_1 + 8.5 * 3_600_000 + 60_000, query="budget", search_type="grep",
                    matched=("notes/b.md", "plan.md"), extra={"line": 5}, **log),  # naive ISO = UTC
        Observation("mkdir", "archive", T0 + 100_000, is_dir=True, extra={"line": 6}, **log),
        Observation("copy", "notes/b.md", T0 + 200_250, dest="archive/b.md", size=5, extra={"line": 7}, **log),
        Observation("delete", "notes/b.md", T0 + 300_000, extra={"line": 8}, **log),
        Observation("read", "plan.md", T0 + 400_000, extra={"line": 9, "log_line": "kept"}, **log),
    ]
    assert (result.report.rows, result.report.observations, result.report.problems) == (8, 8, [])


def test_csv_log_with_header_line_numbers_bom_and_semicolon_matches(tmp_path):
    path = tmp_path / "audit.csv"
    path.write_text("\ufefftime,op,path,dest,is_dir,size,matches,query,search_type,user\n"
                    "1700000000,modified,report.md,,,120,,,,ana\n"
                    "1700000005000,REMOVED,old,,true,,,,,ana\n"
                    "2024-03-01T00:00:00Z,search,.,,,,a.md;notes/b.md;,total,grep,\n")
    result = import_event_log(path)
    assert result.observations == [
        Observation("write", "report.md", T0, size=120, source="log", extra={"line": 2, "user": "ana"}),
        Observation("delete", "old", T0 + 5_000, is_dir=True, source="log", extra={"line": 3, "user": "ana"}),
        Observation("search", ".", MARCH_1, query="total", search_type="grep", matched=("a.md", "notes/b.md"),
                    source="log", extra={"line": 4}),
    ]


def test_csv_cells_spanning_lines_keep_the_first_line_number(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text('time,op,path,content\n1700000000,write,a.md,"line one\nline two"\n1700000001,read,a.md,\n',
                    newline="")
    result = import_event_log(path)
    assert [(o.kind, o.content, o.size, o.extra["line"]) for o in result.observations] == [
        ("write", "line one\nline two", 17, 2), ("read", None, None, 4)]


BAD_ROWS = [
    ({"time": 1700000000, "op": "write"}, "path", "missing"),
    ({"time": "yesterday", "op": "write", "path": "a.md"}, "time", "expected epoch seconds"),
    ({"time": 1700000000, "op": "chmod", "path": "a.md"}, "op", "unknown op 'chmod'"),
    ({"time": 1700000000, "op": "write", "path": "a.md", "is_dir": "maybe"}, "is_dir", "expected true/false"),
    ({"time": 1700000000, "op": "write", "path": "a.md", "size": -3}, "size", "whole number >= 0"),
    ({"time": 1700000000, "op": "move", "path": "a.md"}, "dest", "missing"),
    ({"time": 1700000000000000, "op": "write", "path": "a.md"}, "time", "too large"),
    ({"time": 1700000000, "op": "write", "path": "/elsewhere/a.md"}, "path", "outside the root"),
    ({"time": 1700000000, "op": "search", "path": ".", "search_type": "semantic"}, "search_type", "unknown"),
]


@pytest.mark.parametrize(("row", "field", "reason"), BAD_ROWS, ids=[f for _, f, _ in BAD_ROWS])
def test_a_bad_jsonl_row_names_the_file_the_line_and_the_field(tmp_path, row, field, reason):
    path = jsonl(tmp_path, [{"time": 1700000000, "op": "read", "path": "ok.md"}, "", row])
    with pytest.raises(ObservationError) as caught:
        import_event_log(path, root=tmp_path / "root")
    err = caught.value
    assert (err.where, err.line, err.field) == (str(path), 3, field)
    assert reason in err.reason
    assert str(path) in str(err) and "line 3" in str(err) and f"field '{field}'" in str(err)


@pytest.mark.parametrize(("cells", "field", "reason"), [
    ("1700000000,write,,", "path", "missing"),
    ("soon,write,a.md,", "time", "expected epoch seconds"),
    ("1700000000,touch,a.md,", "op", "unknown op"),
    ("1700000000,write,a.md,2", "is_dir", "expected true/false"),
])
def test_a_bad_csv_row_names_the_line_counting_the_header(tmp_path, cells, field, reason):
    path = tmp_path / "log.csv"
    path.write_text(f"time,op,path,is_dir\n1700000000,read,ok.md,\n{cells}\n")
    with pytest.raises(ObservationError, match=rf"log\.csv: line 3: field '{field}': .*{reason}"):
        import_event_log(path)


def test_collect_keeps_good_rows_and_lists_bad_ones(tmp_path):
    path = jsonl(tmp_path, [
        {"time": 1700000000, "op": "read", "path": "a.md"},
        {"time": 1700000001, "op": "explode", "path": "b.md"},
        "{not json",
        {"time": 1700000002, "op": "write", "path": "c.md", "size": "big"},
        {"time": 1700000003, "op": "delete", "path": "a.md"},
        [1, 2],
    ])
    result = import_event_log(path, errors="collect")
    assert [(o.kind, o.path, o.extra["line"]) for o in result.observations] == [("read", "a.md", 1),
                                                                              ("delete", "a.md", 5)]
    assert [(p.line, p.field) for p in result.report.problems] == [(2, "op"), (3, None), (4, "size"), (6, None)]
    assert "not valid JSON" in result.report.problems[1].reason
    assert (result.report.rows, result.report.observations) == (6, 2)
    text = str(result.report)
    assert "6 rows -> 2 observations" in text and "4 rows with problems" in text and "line 4: field 'size'" in text


def test_outside_skip_counts_rows_outside_the_root(tmp_path):
    root = tmp_path / "root"
    path = jsonl(tmp_path, [
        {"time": 1700000000, "op": "read", "path": f"{root}/in.md"},
        {"time": 1700000001, "op": "read", "path": "/var/log/syslog"},
        {"time": 1700000002, "op": "read", "path": "../sibling.md"},
    ])
    result = import_event_log(path, root=root, outside="skip")
    assert [o.path for o in result.observations] == ["in.md"]
    assert result.report.skipped == Counter({"outside root": 2})
    with pytest.raises(ObservationError, match="line 2: field 'path'.*outside"):
        import_event_log(path, root=root)


def test_file_level_problems_always_raise(tmp_path):
    (tmp_path / "no_path.csv").write_text("time,op,file\n1700000000,read,a.md\n")
    with pytest.raises(ObservationError, match="no_path.csv: line 1: field 'path': the header has no 'path'"):
        import_event_log(tmp_path / "no_path.csv", errors="collect")
    (tmp_path / "events.txt").write_text("")
    with pytest.raises(ObservationError, match="events.txt.*format='jsonl'"):
        import_event_log(tmp_path / "events.txt")
    with pytest.raises(ObservationError, match="missing.jsonl.*cannot read"):
        import_event_log(tmp_path / "missing.jsonl")
    absolute = jsonl(tmp_path, [{"time": 1700000000, "op": "read", "path": "/abs/a.md"}], "abs.jsonl")
    with pytest.raises(ObservationError, match="line 1: field 'path'.*no root="):
        import_event_log(absolute)


def test_format_parameter_overrides_the_suffix_and_bad_utf8_names_the_field(tmp_path):
    path = tmp_path / "events.log"
    path.write_bytes(b"time,op,path\n1700000000,read,caf\xe9.md\n1700000001,read,ok.md\n")
    result = import_event_log(path, format="csv", errors="collect")
    assert [o.path for o in result.observations] == ["ok.md"]
    assert [(p.line, p.field, p.reason) for p in result.report.problems] == [(2, "path", "not valid UTF-8")]
