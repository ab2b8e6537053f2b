import json

import polars as pl

from filegram_kit.cli import main
from filegram_kit.traces.load import load_trajectories

from .conftest import BEHAVIORAL_IN_FIXTURE


def test_validate_reports_counts(corpus, capsys):
    assert main(["validate", str(corpus)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 trajectories, 46 valid events")
    assert "file_read" in out


def test_validate_with_a_broken_event(corpus, capsys):
    path = corpus / "signal" / "p1_methodical_T-05" / "events.json"
    events = json.loads(path.read_text())
    events[5]["switch_count"] = "many"
    path.write_text(json.dumps(events))
    assert main(["validate", str(corpus)]) == 2  # strict: stops at the first bad event
    assert "event 5: field 'switch_count'" in capsys.readouterr().err
    assert main(["validate", str(corpus), "--quarantine"]) == 1
    err = capsys.readouterr().err
    assert "event 5: field 'switch_count'" in err and "1 invalid events/files quarantined" in err


def test_clean_writes_a_loadable_cleaned_corpus(corpus, tmp_path, capsys):
    out = tmp_path / "clean"
    assert main(["clean", str(corpus), "--out", str(out)]) == 0
    assert "dropped 20 metadata events" in capsys.readouterr().out
    trajs = load_trajectories(out)
    assert [len(t) for t in trajs] == [BEHAVIORAL_IN_FIXTURE] * 2


def test_profiles_and_tasks_listings(capsys):
    assert main(["profiles", "--format", "csv"]) == 0
    frame = pl.read_csv(capsys.readouterr().out.encode())
    assert frame.height == 20 and frame.columns[:4] == ["id", "name", "role", "language"]
    assert main(["profiles", "--sample", "6", "--seed", "2", "--format", "csv", "--attributes"]) == 0
    assert pl.read_csv(capsys.readouterr().out.encode()).width == 10 + 16
    assert main(["tasks", "--prompts", "zh"]) == 0
    assert "T-32" in capsys.readouterr().out


def test_missing_path_is_a_clear_error(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_reproduce_workers_reach_the_bench_settings_and_default_to_the_machine(monkeypatch, tmp_path, capsys):
    import pytest

    from filegram_kit import report
    from filegram_kit.cli import commands as cli

    seen = []
    monkeypatch.setattr(report, "reproduce", lambda out, **kw: seen.append(kw["settings"]) or [])
    monkeypatch.setattr(cli, "machine_workers", lambda: 7)
    assert main(["reproduce", "--out", str(tmp_path), "--workers", "3"]) == 0
    assert main(["reproduce", "--out", str(tmp_path), "--quick"]) == 0
    assert main(["reproduce", "--out", str(tmp_path), "--backend", "gemini"]) == 0
    assert [s.workers for s in seen] == [3, 7, 2]  # a keyed backend keeps its 2 threads unless told
    assert seen[0].keyed() == seen[2].with_backend("offline").keyed()  # no step's key names the workers
    with pytest.raises(SystemExit, match="at least 1"):
        main(["reproduce", "--out", str(tmp_path), "--workers", "0"])


def test_machine_workers_stay_within_cores_and_memory(monkeypatch):
    from filegram_kit.cli import commands as cli

    monkeypatch.setattr(cli.os, "cpu_count", lambda: 64)
    monkeypatch.setattr(cli.os, "sysconf", lambda name: 4096 if name == "SC_PAGE_SIZE" else 8 * 2**30 // 4096)
    assert cli.machine_workers() == 3  # 8 GiB: three workers of 2.5 GiB, not 64
    monkeypatch.setattr(cli.os, "cpu_count", lambda: 2)
    assert cli.machine_workers() == 2
