from collections import Counter

import pytest

from filegram_kit.traces.schema import (
    ATTRIBUTES,
    BEHAVIORAL_ATTRIBUTES,
    DIMENSIONS,
    EVENT_CATEGORY,
    EVENT_FIELDS,
    EVENT_TYPES,
    IDENTITY_ATTRIBUTES,
    LEAKING_FIELDS,
    METADATA_EVENT_TYPES,
    RETAINED_EVENT_TYPES,
    Event,
    Tier,
)

PAPER_TABLE5_RETAINED = {"file_read", "file_browse", "file_search", "file_write", "file_edit", "dir_create",
                         "file_copy", "file_move", "file_delete", "file_rename", "cross_file_reference",
                         "context_switch"}
PAPER_TABLE5_REMOVED = {"tool_call", "llm_response", "iteration_start", "iteration_end", "fs_snapshot",
                        "session_start", "session_end", "error_encounter", "error_response", "compaction_triggered"}


def test_event_type_counts_match_the_release():
    assert len(EVENT_TYPES) == 22 and len(set(EVENT_TYPES)) == 22
    assert set(RETAINED_EVENT_TYPES) == PAPER_TABLE5_RETAINED
    assert set(METADATA_EVENT_TYPES) == PAPER_TABLE5_REMOVED
    assert set(LEAKING_FIELDS) == {"message_id", "model_provider", "model_name"}


def test_table5_categories():
    counts = Counter(EVENT_CATEGORY[t] for t in RETAINED_EVENT_TYPES)
    assert counts == {"read": 3, "write": 2, "organize": 5, "flow": 2}


def test_field_specs_follow_spec_4_3():
    assert list(EVENT_FIELDS["file_read"]) == ["file_path", "file_type", "directory_depth", "view_count",
                                               "view_range", "content_length", "revisit_interval_ms"]
    assert set(EVENT_FIELDS["file_copy"]) == {"source_path", "dest_path", "is_backup"}
    assert set(EVENT_FIELDS["file_rename"]) == {"old_path", "new_path", "naming_pattern_change"}
    assert EVENT_FIELDS["context_switch"]["from_file"].endswith("?")  # first switch has no previous file


def test_dimensions_and_attributes():
    assert list(DIMENSIONS) == list("ABCDEF")
    assert DIMENSIONS["E"].name == "Curation"  # project decision 1
    assert DIMENSIONS["C"].describe("R") == "Flat (root only)"
    assert len(ATTRIBUTES) == 19
    assert IDENTITY_ATTRIBUTES == ("name", "role", "language")
    assert len(BEHAVIORAL_ATTRIBUTES) == 16
    assert ATTRIBUTES["version_strategy"].dimensions == ("C", "D")
    per_dim = Counter(d for a in BEHAVIORAL_ATTRIBUTES for d in ATTRIBUTES[a].dimensions)
    assert all(per_dim[d] >= 2 for d in DIMENSIONS)  # every dimension has at least two attributes
    assert ATTRIBUTES["working_style"].dimensions == ("E",)


def test_tier_parsing_and_order():
    assert Tier.parse("l") is Tier.L and Tier.parse(Tier.R) is Tier.R
    assert [t.index for t in (Tier.L, Tier.M, Tier.R)] == [0, 1, 2]
    with pytest.raises(ValueError, match="L, M, R"):
        Tier.parse("X")


def test_event_to_dict_puts_envelope_first():
    e = Event("e1", "file_browse", 5.0, "s", "p", {"directory_path": ".", "files_listed": 3, "depth": 0})
    assert list(e.to_dict())[:5] == ["event_id", "event_type", "timestamp", "session_id", "profile_id"]
    assert e.category == "read" and e.is_behavioral
    assert Event("e2", "tool_call", 1.0).to_dict() == {"event_id": "e2", "event_type": "tool_call", "timestamp": 1.0}


def test_records_can_be_used_as_set_members_and_dict_keys():
    from filegram_kit.traces.profiles import load_profiles
    from filegram_kit.traces.tasks import load_tasks

    profiles = list(load_profiles().values())
    assert len(set(profiles + profiles)) == 20
    assert len({t: t.id for t in load_tasks().values()}) == 32
