"""The response cache: keys hash exactly what changes a response, modes behave as documented, nothing bad is stored."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from filegram_kit.cli import main
from filegram_kit.llm.cache import CacheMiss, ResponseCache, cache_key, canonical_json, default_cache

PARTS = {"backend": "gemini", "model": "gemini-2.5-flash", "task": "summarize", "prompt_version": 3,
         "inputs": {"text": "Réunion à 9h", "n": [1, 2.5]}, "params": {"temperature": 0.0, "max_tokens": 64}}
META = {"task": "summarize", "backend": "gemini", "model": "gemini-2.5-flash"}


def key_of(**changes) -> str:
    return cache_key(**{**PARTS, **changes})


class Counted:
    """A compute function that records how often it ran."""

    def __init__(self, value):
        self.value, self.calls = value, 0

    def __call__(self):
        self.calls += 1
        return self.value


class Refusal:
    cacheable = False

    def __init__(self, text: str):
        self.text = text


def files(root: Path) -> list[Path]:
    return sorted(root.glob("*/*.json"))


# --- keys ------------------------------------------------------------------------------------------------------------


def test_key_is_sha256_of_canonical_json():
    canonical = json.dumps(PARTS, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert key_of() == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    # pinned: the same parts give this key on every machine and in every process
    assert key_of() == "e3f2b63f7ffefe5412b24adb821d598c746f20db2216f2b43a2dd88b8bfa4d85"


@pytest.mark.parametrize("part, other", [("backend", "openai_compat"), ("model", "gemini-2.5-pro"),
                                         ("task", "extract_facts"), ("prompt_version", 4),
                                         ("prompt_version", "3"), ("inputs", {"text": "Réunion à 10h", "n": [1, 2.5]}),
                                         ("inputs", {"text": "Réunion à 9h", "n": [1, 2.50001]}),
                                         ("params", {"temperature": 0.2, "max_tokens": 64})])
def test_each_part_changes_the_key(part, other):
    assert key_of(**{part: other}) != key_of()


def test_dict_order_does_not_change_the_key():
    assert key_of(params={"max_tokens": 64, "temperature": 0.0}, inputs={"n": [1, 2.5], "text": "Réunion à 9h"}) \
        == key_of()


def test_numpy_arrays_and_tuples_hash_like_lists():
    vectors = [[0.25, -1.5], [3.0, 0.1]]
    as_list = key_of(inputs={"v": vectors})
    assert key_of(inputs={"v": np.array(vectors)}) == as_list
    assert key_of(inputs={"v": tuple(tuple(r) for r in vectors)}) == as_list
    assert key_of(params={"k": np.int64(5), "t": np.float64(0.5)}) == key_of(params={"k": 5, "t": 0.5})


@pytest.mark.parametrize("inputs, named", [({"tags": {"a", "b"}}, "set"), ([datetime(2024, 1, 1)], "datetime"),
                                           ({1: "x"}, "dict key 1 is int"), ({"p": Path("x")}, "Path")])
def test_non_json_input_is_a_clear_type_error(inputs, named):
    with pytest.raises(TypeError, match=named) as info:
        key_of(inputs=inputs)
    assert "inputs" in str(info.value)


# --- modes -----------------------------------------------------------------------------------------------------------


def test_use_stores_then_hits_with_zero_computes(tmp_path):
    key, compute = key_of(), Counted({"summary": "a meeting", "tokens": [3, 4]})
    assert ResponseCache(tmp_path).get_or_compute(key, compute, meta=META) == (compute.value, False)
    rerun = ResponseCache(tmp_path)  # a new process would see the same files
    again = Counted("never used")
    assert rerun.get_or_compute(key, again, meta=META) == (compute.value, True)
    assert (compute.calls, again.calls) == (1, 0)
    entry = json.loads((tmp_path / key[:2] / f"{key}.json").read_text(encoding="utf-8"))
    assert entry["key"] == key and entry["value"] == compute.value and entry["meta"] == META
    assert datetime.fromisoformat(entry["created_at"]).tzinfo is not None
    assert {k: rerun.stats()[k] for k in ("hits", "misses", "stores", "errors")} == \
        {"hits": 1, "misses": 0, "stores": 0, "errors": 0}


def test_a_miss_returns_what_a_hit_will_return(tmp_path):
    cache = ResponseCache(tmp_path)
    value, hit = cache.get_or_compute(key_of(), lambda: {"embedding": np.array([0.5, 0.25]), "pair": (1, "a")})
    assert not hit and value == {"embedding": [0.5, 0.25], "pair": [1, "a"]}
    assert type(value["embedding"]) is list
    assert cache.get_or_compute(key_of(), Counted(None)) == (value, True)


def test_replay_miss_raises_a_helpful_cache_miss(tmp_path):
    compute = Counted("x")
    with pytest.raises(CacheMiss) as info:
        ResponseCache(tmp_path, "replay").get_or_compute(key_of(), compute, meta=META)
    message = str(info.value)
    for needed in ("summarize", "gemini", "gemini-2.5-flash", key_of()[:12], "'use'"):
        assert needed in message
    assert isinstance(info.value, LookupError) and compute.calls == 0 and files(tmp_path) == []


def test_replay_hit_works(tmp_path):
    ResponseCache(tmp_path).get_or_compute(key_of(), lambda: "cached", meta=META)
    compute = Counted("fresh")
    assert ResponseCache(tmp_path, "replay").get_or_compute(key_of(), compute) == ("cached", True)
    assert compute.calls == 0


def test_refresh_always_recomputes_and_overwrites(tmp_path):
    ResponseCache(tmp_path).get_or_compute(key_of(), lambda: "old")
    refresh, compute = ResponseCache(tmp_path, "refresh"), Counted("new")
    assert refresh.get_or_compute(key_of(), compute) == ("new", False)
    assert refresh.get_or_compute(key_of(), compute) == ("new", False)
    assert compute.calls == 2 and refresh.stores == 2
    assert ResponseCache(tmp_path).get_or_compute(key_of(), Counted(None)) == ("new", True)


def test_off_never_touches_disk(tmp_path):
    root = tmp_path / "cache"
    ResponseCache(root).get_or_compute(key_of(), lambda: "stored")
    before = {p: p.read_bytes() for p in files(root)}
    off, compute = ResponseCache(root, "off"), Counted("computed")
    assert off.get_or_compute(key_of(), compute) == ("computed", False)
    assert off.get_or_compute(key_of(task="other"), compute) == ("computed", False)
    assert compute.calls == 2 and off.hits == 0 and off.stores == 0
    assert {p: p.read_bytes() for p in files(root)} == before
    fresh = tmp_path / "never"
    ResponseCache(fresh, "off").get_or_compute(key_of(), compute)
    assert not fresh.exists()


def test_invalid_mode_lists_the_modes(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="use, replay, refresh, off"):
        ResponseCache(tmp_path, "read-only")
    monkeypatch.setenv("FILEGRAM_CACHE_MODE", "sometimes")
    with pytest.raises(ValueError, match="FILEGRAM_CACHE_MODE"):
        default_cache()


def test_bad_key_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="64 lowercase hex"):
        ResponseCache(tmp_path).get_or_compute("../../etc/passwd", lambda: 1)


def test_default_cache_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("FILEGRAM_CACHE", str(tmp_path / "c"))
    monkeypatch.setenv("FILEGRAM_CACHE_MODE", "replay")
    cache = default_cache()
    assert (cache.root, cache.mode) == (tmp_path / "c", "replay")
    assert default_cache("refresh").mode == "refresh"
    monkeypatch.delenv("FILEGRAM_CACHE")
    monkeypatch.delenv("FILEGRAM_CACHE_MODE")
    cache = default_cache()
    assert cache.mode == "use" and cache.root.parts[-2:] == ("data", "cache")


# --- what is never stored --------------------------------------------------------------------------------------------


def test_errors_are_not_stored(tmp_path):
    cache = ResponseCache(tmp_path)

    def fails():
        raise ConnectionError("503 from the provider")

    with pytest.raises(ConnectionError):
        cache.get_or_compute(key_of(), fails)
    assert files(tmp_path) == [] and cache.errors == 1 and cache.stores == 0
    assert cache.get_or_compute(key_of(), lambda: "recovered") == ("recovered", False)


def test_refusals_are_returned_but_not_stored(tmp_path):
    cache, refusal = ResponseCache(tmp_path), Refusal("I cannot help with that")
    value, hit = cache.get_or_compute(key_of(), lambda: refusal)
    assert value is refusal and not hit
    assert files(tmp_path) == [] and cache.stores == 0
    compute = Counted("an answer")
    assert cache.get_or_compute(key_of(), compute) == ("an answer", False) and compute.calls == 1


def test_unstorable_value_is_a_type_error_naming_it(tmp_path):
    with pytest.raises(TypeError, match="set"):
        ResponseCache(tmp_path).get_or_compute(key_of(), lambda: {"labels": {"a"}})
    assert files(tmp_path) == []


# --- corrupt entries, verify, prune ----------------------------------------------------------------------------------


def _store(cache: ResponseCache, n: int) -> list[str]:
    keys = [key_of(inputs=i) for i in range(n)]
    for i, key in enumerate(keys):
        cache.get_or_compute(key, lambda i=i: f"value {i}", meta={"task": "summarize" if i % 2 else "embed",
                                                                  "backend": "offline"})
    return keys


def test_corrupt_entries_are_misses_and_verify_reports_them(tmp_path):
    cache = ResponseCache(tmp_path)
    truncated, foreign, not_entry, good = _store(cache, 4)
    cache.path(truncated).write_text('{"key": "', encoding="utf-8")
    entry = json.loads(cache.path(good).read_text())
    cache.path(foreign).write_text(json.dumps({**entry, "value": "someone else's"}), encoding="utf-8")
    cache.path(not_entry).write_text("[1, 2]", encoding="utf-8")
    reasons = {path.stem: reason for path, reason in cache.verify()}
    assert set(reasons) == {truncated, foreign, not_entry}
    assert "not JSON" in reasons[truncated] and "does not match" in reasons[foreign]
    assert "not a cache entry" in reasons[not_entry]
    rerun = ResponseCache(tmp_path)
    for key in (truncated, foreign, not_entry):
        with pytest.warns(UserWarning, match=f"{key}.json: corrupt cache entry .*recomputing"):
            assert rerun.get_or_compute(key, lambda: "recomputed") == ("recomputed", False)
    assert rerun.corrupt == 3 and rerun.get_or_compute(good, Counted(None)) == ("value 3", True)
    assert cache.verify() == []


def test_an_altered_value_fails_its_checksum_and_is_recomputed(tmp_path):
    cache = ResponseCache(tmp_path)
    (key,) = _store(cache, 1)
    entry = json.loads(cache.path(key).read_text())
    assert entry["sha256"] == hashlib.sha256(canonical_json(entry["value"]).encode()).hexdigest()
    cache.path(key).write_text(json.dumps({**entry, "value": entry["value"] + "!"}), encoding="utf-8")  # valid JSON
    assert [reason for _, reason in cache.verify()] == ["checksum mismatch: the stored value was altered"]
    with pytest.warns(UserWarning, match="checksum mismatch"):
        assert ResponseCache(tmp_path).get_or_compute(key, lambda: "fresh") == ("fresh", False)
    legacy = {k: v for k, v in entry.items() if k != "sha256"}  # written before checksums: read as it is
    cache.path(key).write_text(json.dumps(legacy), encoding="utf-8")
    assert ResponseCache(tmp_path).get_or_compute(key, lambda: "unused") == (entry["value"], True)


def test_two_computers_of_one_key_take_turns(tmp_path):
    """The second waits for the first's entry instead of calling the model again (each holds its own lock file
    handle, as two processes would)."""
    calls, started = [], threading.Event()

    def slow():
        calls.append(1)
        started.set()
        time.sleep(0.3)
        return "answer"

    key = cache_key(backend="b", model="m", task="t", prompt_version=1, inputs="x", params={})
    results = {}
    first = threading.Thread(target=lambda: results.setdefault("a", ResponseCache(tmp_path).get_or_compute(key, slow)))
    first.start()
    started.wait()
    results["b"] = ResponseCache(tmp_path).get_or_compute(key, slow)
    first.join()
    assert len(calls) == 1 and results == {"a": ("answer", False), "b": ("answer", True)}
    assert sorted(p.name for p in cache_dir_files(tmp_path)) == [f"{key}.json"]  # no lock file left


def test_replay_names_a_corrupt_entry(tmp_path):
    (key,) = _store(ResponseCache(tmp_path), 1)
    ResponseCache(tmp_path).path(key).write_bytes(b"\xff\xfe garbage")
    with pytest.raises(CacheMiss, match="unreadable"), pytest.warns(UserWarning, match="cannot recompute"):
        ResponseCache(tmp_path, "replay").get_or_compute(key, lambda: "x")


def _age(cache: ResponseCache, key: str, days: float) -> None:
    """Backdate an entry's created_at (what prune reads) by `days`."""
    path = cache.path(key)
    entry = json.loads(path.read_text())
    entry["created_at"] = datetime.fromtimestamp(time.time() - days * 86400).astimezone().isoformat()
    path.write_text(json.dumps(entry))


def test_prune_by_age_and_dry_run(tmp_path):
    cache = ResponseCache(tmp_path)
    old, recent, broken = _store(cache, 3)
    _age(cache, old, 40)
    _age(cache, recent, 5)
    cache.path(broken).write_text("not json")
    stamp = time.time() - 90 * 86400
    os.utime(cache.path(broken), (stamp, stamp))  # a corrupt entry is dated by its mtime
    expected = sorted([cache.path(old), cache.path(broken)])
    assert sorted(cache.prune(older_than_days=30, dry_run=True)) == expected
    assert len(files(tmp_path)) == 3
    assert sorted(cache.prune(older_than_days=30)) == expected
    assert files(tmp_path) == [cache.path(recent)]
    assert cache.prune(older_than_days=1) == [cache.path(recent)] and not any(tmp_path.iterdir())


def test_prune_keep_set(tmp_path):
    cache = ResponseCache(tmp_path)
    keys = _store(cache, 5)
    _age(cache, keys[0], 10)
    assert cache.prune(keep=keys[:2], dry_run=True) == sorted(cache.path(k) for k in keys[2:])
    assert len(files(tmp_path)) == 5
    assert cache.prune(older_than_days=3, keep=keys[1:]) == [cache.path(keys[0])]  # both bounds must hold
    assert sorted(cache.prune(keep=keys[:2])) == sorted(cache.path(k) for k in keys[2:])
    assert files(tmp_path) == [cache.path(keys[1])]
    with pytest.raises(ValueError, match="older_than_days, keep"):
        cache.prune()


def test_entries_and_stats(tmp_path):
    cache = ResponseCache(tmp_path)
    keys = _store(cache, 3)
    entries = {e.key: e for e in cache.entries()}
    assert set(entries) == set(keys)
    assert entries[keys[1]].meta == {"task": "summarize", "backend": "offline"}
    assert all(e.size == cache.path(e.key).stat().st_size and e.created_at is not None for e in entries.values())
    stats = cache.stats()
    assert (stats["entries"], stats["stores"], stats["misses"]) == (3, 3, 3)
    assert stats["bytes"] == sum(e.size for e in entries.values())


# --- threads ---------------------------------------------------------------------------------------------------------


def test_thread_pool_of_8_on_50_keys(tmp_path):
    cache = ResponseCache(tmp_path)
    keys = [key_of(inputs={"doc": i}) for i in range(50)]
    jobs = [(i, keys[i]) for i in range(50)] * 2  # every key asked twice, possibly at the same time
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda job: cache.get_or_compute(job[1], lambda: {"doc": job[0], "sq": job[0] ** 2}),
                                jobs))
    assert [value for value, _ in results] == [{"doc": i, "sq": i * i} for i, _ in jobs]
    assert len(files(tmp_path)) == 50 and cache.verify() == []
    assert cache.hits + cache.misses == 100 and cache.misses >= 50 and cache.stores == cache.misses
    assert not list(tmp_path.rglob("*.tmp"))


# --- CLI -------------------------------------------------------------------------------------------------------------


def test_cli_stats(tmp_path, capsys):
    cache = ResponseCache(tmp_path)
    _store(cache, 3)
    assert main(["cache", "stats", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"{tmp_path}: 3 entries, {cache.stats()['bytes']} bytes" in out
    assert "| embed | offline | 2 |" in out and "| summarize | offline | 1 |" in out


def test_cli_verify_exit_codes(tmp_path, capsys):
    cache = ResponseCache(tmp_path)
    keys = _store(cache, 2)
    assert main(["cache", "verify", "--dir", str(tmp_path)]) == 0
    assert "2 entries, 0 broken" in capsys.readouterr().out
    cache.path(keys[0]).write_text("{")
    assert main(["cache", "verify", "--dir", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "1 broken" in captured.out and f"{cache.path(keys[0])}: not JSON" in captured.err
    assert main(["cache", "stats", "--dir", str(tmp_path)]) == 0
    assert "1 entries are unreadable" in capsys.readouterr().out


def test_cli_prune(tmp_path, capsys):
    cache = ResponseCache(tmp_path)
    old, new = _store(cache, 2)
    _age(cache, old, 10)
    assert main(["cache", "prune", "--dir", str(tmp_path), "--older-than", "7", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would remove 1 entries" in out and str(cache.path(old)) in out and len(files(tmp_path)) == 2
    assert main(["cache", "prune", "--dir", str(tmp_path), "--older-than", "7"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out and files(tmp_path) == [cache.path(new)]
    assert main(["cache", "prune", "--dir", str(tmp_path)]) == 2
    assert "--older-than" in capsys.readouterr().err and files(tmp_path) == [cache.path(new)]


def cache_dir_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]
