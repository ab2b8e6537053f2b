"""Style packs: pack B words the offline agent's outputs differently, and changes nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from filegram_kit.engine import CorpusError, build_corpus, generate_trajectory
from filegram_kit.engine.style_packs import PACK_A, PACK_B, PACKS, StylePack, get_pack
from filegram_kit.traces.documents import read_text
from filegram_kit.traces.profiles import get_profile
from filegram_kit.traces.tasks import get_task
from filegram_kit.workspace import ensure_template

# small runs covering en/zh, formal/casual tone, every naming tier and the task types that write, organize
# (moves, renames, per-folder indexes), iterate (backups, edits) and maintain
PAIRS = [("p11", "T-06"), ("p3", "T-03"), ("p6", "T-05"), ("p14", "T-21"), ("p1", "T-09"), ("p19", "T-12"),
         ("p15", "T-10")]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("workspaces")


@pytest.fixture(scope="module")
def runs(tmp_path_factory, cache):
    """(profile, task) -> {pack: trajectory folder}, both packs from seed 0 and one workspace cache."""
    root = tmp_path_factory.mktemp("packs")
    return {(p, t): {name: generate_trajectory(get_profile(p), get_task(t), root / name, seed=0,
                                               workspace_cache=cache, style_pack=name) for name in PACKS}
            for p, t in PAIRS}


def events(folder: Path) -> list[dict]:
    return json.loads((folder / "events.json").read_text(encoding="utf-8"))


def written(folder: Path) -> str:
    """Everything the agent wrote: the content of each write and the result of each edit."""
    refs = [e.get("media_ref") if e["event_type"] == "file_write" else e.get("media_ref_new")
            for e in events(folder) if e["event_type"] in ("file_write", "file_edit")]
    return "\n".join((folder / "media" / r["path"]).read_text(encoding="utf-8", errors="replace") for r in refs if r)


def created_paths(folder: Path) -> set[str]:
    keys = {"file_write": "file_path", "dir_create": "dir_path", "file_move": "new_path", "file_rename": "new_path",
            "file_copy": "dest_path"}
    return {e[keys[e["event_type"]]] for e in events(folder) if e["event_type"] in keys}


def inputs(task_id: str, cache: Path) -> str:
    """What the persona could read: the task's workspace files and its prompts (text views)."""
    task = get_task(task_id)
    template = ensure_template(task, cache)
    texts = [read_text(p) for p in sorted(template.rglob("*")) if p.is_file()]
    return "\n".join([task.prompt_en, task.prompt_zh, task.description, *texts])


def _fixed(template: str) -> list[str]:
    """The literal parts of a template ('Furthermore, {s}' -> ['Furthermore, '])."""
    parts, rest = [], template
    while "{" in rest:
        head, rest = rest.split("{", 1)
        parts.append(head)
        rest = rest.split("}", 1)[1]
    return [p for p in [*parts, rest] if any(ch.isalpha() for ch in p)]  # "_", ": " are punctuation, not wording


def scaffolding(pack: StylePack, lang: str) -> dict[str, set[str]]:
    """A pack's distinctive wording in one language: headings (as heading lines), openers, links and labels."""
    return {
        "headings": {f"# {pack.heading(key, lang)}\n" for key in pack.sections},
        "openers": {part for (lg, _), text in pack.openers.items() if lg == lang for part in _fixed(text)},
        "links": {part for (lg, _), links in pack.links.items() if lg == lang for text in links
                  for part in _fixed(text)},
        "labels": {*_fixed(pack.source_line[lang]), *_fixed(pack.added[lang]), pack.checked[lang],
                   *_fixed(pack.figure_caption[lang]), *pack.table_heads[lang], pack.csv_header,
                   *(pack.zh_type.values() if lang == "zh" else ())},
    }


def test_get_pack_knows_the_packs_and_names_them_when_asked_for_another():
    assert get_pack("A") is PACK_A and get_pack("B") is PACK_B
    with pytest.raises(ValueError, match="'C'.*A, B"):
        get_pack("C")


@pytest.mark.parametrize(("profile", "task"), PAIRS)
def test_pack_b_does_what_pack_a_does_in_other_words(runs, profile, task):
    a, b = runs[(profile, task)]["A"], runs[(profile, task)]["B"]
    events_a, events_b = events(a), events(b)
    assert len(events_a) == len(events_b)
    assert [e["event_type"] for e in events_a] == [e["event_type"] for e in events_b]
    assert created_paths(a) != created_paths(b)  # other file and folder names
    assert written(a) != written(b)  # other contents ...
    sizes = ("content_length", "lines_added", "lines_deleted", "input_tokens", "output_tokens", "timestamp")
    assert [[e.get(k) for k in sizes] for e in events_a] == [[e.get(k) for k in sizes] for e in events_b]


@pytest.mark.parametrize(("profile", "task"), PAIRS)
def test_pack_b_outputs_carry_none_of_pack_a_scaffolding(runs, cache, profile, task):
    run = runs[(profile, task)]
    lang = get_profile(profile).lang
    seen = inputs(task, cache)
    text = {name: written(folder) for name, folder in run.items()}
    own = {name: scaffolding(pack, lang) for name, pack in PACKS.items()}
    every = {name: {m for kind in markers.values() for m in kind} for name, markers in own.items()}
    shared = every["A"] & every["B"]
    for name, other in (("B", "A"), ("A", "B")):  # a foreign marker inside one's own (文档 in '| 文档 |') is not one
        foreign = {m for m in every[other] - shared if not any(m in mine for mine in every[name])}
        leaked = sorted(m for m in foreign if m in text[name] and m not in seen)  # a quote of the inputs is content
        assert not leaked, f"pack {name} output has pack {other}'s wording: {leaked}"
        found = {kind for kind, markers in own[name].items() if any(m in text[name] for m in markers - shared)}
        assert {"headings", "openers"} <= found, f"pack {name}'s own wording is missing: {found}"
    if lang == "en":  # the brief's examples, spelled out
        for word in ("# Key findings", "Furthermore, ", "btw ", "This document "):
            assert word not in text["B"] or word in seen


def test_pack_b_is_byte_deterministic(runs, tmp_path):
    profile, task = PAIRS[3]
    again = generate_trajectory(get_profile(profile), get_task(task), tmp_path / "again", seed=0,
                                workspace_cache=tmp_path / "ws", style_pack="B")
    first = runs[(profile, task)]["B"]
    assert (again / "events.json").read_bytes() == (first / "events.json").read_bytes()
    assert sorted(p.name for p in (again / "media" / "blobs").iterdir()) == sorted(
        p.name for p in (first / "media" / "blobs").iterdir())


def test_the_llm_agent_keeps_its_own_words(tmp_path):
    with pytest.raises(ValueError, match="llm agent"):
        generate_trajectory(get_profile("p2"), get_task("T-09"), tmp_path / "s", workspace_cache=tmp_path / "ws",
                            agent="llm", style_pack="B")


def test_cli_builds_pack_b_and_one_folder_holds_one_pack(tmp_path, capsys):
    from filegram_kit.cli import main

    out = tmp_path / "b"
    assert main(["corpus", "--out", str(out), "--profiles", "p2", "--tasks", "T-09", "--workers", "1",
                 "--style-pack", "B"]) == 0
    assert json.loads((out / "corpus.json").read_text())["style_pack"] == "B"
    assert main(["corpus", "--out", str(out), "--profiles", "p2", "--tasks", "T-09", "--workers", "1"]) == 2
    assert "style_pack='B'" in capsys.readouterr().err  # pack A into pack B's folder: refused, nothing mixed
    build_corpus(tmp_path / "a", profiles=["p2"], tasks=["T-09"], workers=1, progress=False)
    assert json.loads((tmp_path / "a" / "corpus.json").read_text())["style_pack"] == "A"
    with pytest.raises(CorpusError, match="style_pack='A'"):
        build_corpus(tmp_path / "a", profiles=["p2"], tasks=["T-09"], workers=1, progress=False, style_pack="B")
    assert main(["corpus", "--out", str(tmp_path / "c"), "--agent", "llm", "--style-pack", "B"]) == 2
    assert "--style-pack B" in capsys.readouterr().err and not (tmp_path / "c").exists()
