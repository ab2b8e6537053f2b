"""The memory protocol (memory/base.py): registry, ground-truth guard, Context, token estimate."""

from __future__ import annotations

import pytest

from filegram_kit.memory import Context, GroundTruthError, check_no_ground_truth, get_memory, register_memory
from filegram_kit.memory.base import MemorySystem, one_user
from filegram_kit.traces.profiles import load_profiles
from filegram_kit.util.tokens import estimate_tokens
from tests.builders import make, read, write


def test_token_estimate_counts_latin_by_four_and_chinese_by_one():
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("中文文件") == 4
    assert estimate_tokens("中文 abcd") == 2 + 2  # two characters, then " abcd" = 5 others -> 2


def test_context_keeps_block_order_drops_empty_blocks_and_dedups_sources():
    ctx = Context.from_blocks({"B first": "x", "Empty": "", "A second": "y"}, ["e2", "e1", "e2"])
    assert ctx.text == "## B first\nx\n\n## A second\ny"
    assert list(ctx.blocks) == ["B first", "A second"]
    assert ctx.sources == ("e2", "e1")
    assert ctx.tokens == estimate_tokens(ctx.text)


def test_registry_names_the_known_memories_and_accepts_new_ones(monkeypatch):
    with pytest.raises(KeyError, match="filegramos"):
        get_memory("no-such-memory")
    monkeypatch.setattr("filegram_kit.memory.base.MEMORIES", {"filegramos": "x:y"})
    register_memory("plain", "filegram_kit.memory.base:MemorySystem")
    memory = get_memory("plain", k=3)
    assert isinstance(memory, MemorySystem) and memory.params() == {"method": "memory", "k": 3}


def test_guard_refuses_profiles_and_ground_truth_fields(tmp_path):
    clean_traj = make(tmp_path, "p1_methodical_T-01", [read(), write("a.md", "hello")])
    assert check_no_ground_truth([clean_traj]) == [clean_traj]
    with pytest.raises(GroundTruthError, match="Profile"):
        check_no_ground_truth([load_profiles()["p1_methodical"]])
    tagged = make(tmp_path, "p1_methodical_T-02", [read(), ("file_read", {"file_path": "b.md", "view_count": 1,
                                                                            "perturbation": {"dimension": "A"}})])
    with pytest.raises(GroundTruthError, match=r"p1_methodical_T-02: event 1 \(file_read\): field.perturbation"):
        check_no_ground_truth([tagged])
    summary = make(tmp_path, "p1_methodical_T-03", [read()])
    object.__setattr__(summary, "summary", {"profile_id": "p1", "meta": {"tiers": {"A": "L"}}})
    with pytest.raises(GroundTruthError, match=r"summary.json.meta.tiers"):
        check_no_ground_truth([summary])


def test_a_memory_holds_one_user(tmp_path):
    a = make(tmp_path, "p1_methodical_T-01", [read()])
    b = make(tmp_path, "p2_thorough_reviser_T-01", [read()])
    assert one_user([a]) == "p1_methodical"
    with pytest.raises(ValueError, match="one user"):
        one_user([a, b])
    with pytest.raises(ValueError, match="at least one"):
        one_user([])


def test_filegramos_refuses_unknown_knobs_and_bad_values():
    with pytest.raises(TypeError, match="display_char"):
        get_memory("filegramos", display_char=300)
    with pytest.raises(ValueError, match="preview_chars"):
        get_memory("filegramos", preview_chars=-1)
    with pytest.raises(ValueError, match="unknown channel"):
        get_memory("filegramos", channels=("procedural", "visual"))
    memory = get_memory("filegramos", display_chars=800)
    assert memory.params()["display_chars"] == 800 and memory.params()["method"] == "filegramos"
    with pytest.raises(RuntimeError, match="ingest"):
        memory.retrieve("anything", backend=None)


def test_by_identity_memoises_per_live_object_only():
    from filegram_kit.memory.base import by_identity

    calls = []

    class Box:
        def __init__(self, v):
            self.v = v

    @by_identity
    def double(box):
        calls.append(box.v)
        return box.v * 2

    a = Box(2)
    assert double(a) == 4 and double(a) == 4 and calls == [2]
    assert double(Box(2)) == 4 and calls == [2, 2]  # an equal but different object is computed again


def test_cleaning_a_clean_trajectory_returns_it_unchanged(tmp_path):
    from filegram_kit.traces.cleaning import clean

    raw = make(tmp_path, "p1_methodical_T-01", [read(), write("a.md", "hello")])
    once = clean([raw]).trajectories[0]
    assert once is not raw  # the media gets the anonymising view
    assert clean([once]).trajectories[0] is once
