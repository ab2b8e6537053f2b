"""Track 4's items and the settings of the corpus they are answered from, for runs that mix all four tracks.

    items = track4_items("data/corpus", seed=0)             # File Grounding (550) + Visual Grounding (100)
    for setting, group in by_setting(items).items():
        where = setting_corpus("data/corpus", setting, group)  # data/corpus_multimodal, data/corpus_visual

A Track 4 item names its setting in `metadata["setting"]`: File Grounding is answered from the multimodal
setting (outputs rendered as PDF, DOCX, images and audio, then parsed back), Visual Grounding from the
visual one (the captioned replay of a session's first half). Each setting lives beside its text corpus;
it is built on first use and rebuilt when it is stale (built by other render or replay code, from another
corpus or with another render seed), so a run never answers from a setting the code would not make now.
Only a folder that holds that setting's own corpus.json is ever replaced.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

from .schema import Item

SETTINGS = ("multimodal", "visual")


def track4_items(corpus: str | Path, *, seed: int = 0) -> list[Item]:
    """File Grounding then Visual Grounding items of item seed `seed` (both scaled by the corpus' size)."""
    from .file_grounding import build_file_grounding
    from .visual_grounding import visual_grounding_items

    return build_file_grounding(corpus, seed=seed)[0] + visual_grounding_items(corpus, seed=seed)


def setting_of(item: Item) -> str:
    """The setting an item is answered from: "text" unless its metadata names another."""
    return str((item.metadata or {}).get("setting") or "text")


def by_setting(items: list[Item]) -> dict[str, list[Item]]:
    """Items grouped by setting, in first-seen order."""
    groups: dict[str, list[Item]] = {}
    for item in items:
        groups.setdefault(setting_of(item), []).append(item)
    return groups


def setting_dir(corpus: str | Path, setting: str) -> Path:
    """Where a text corpus' setting lives: beside it (data/corpus -> data/corpus_multimodal)."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; settings: text, {', '.join(SETTINGS)}")
    corpus = Path(corpus)
    return corpus.with_name(f"{corpus.name}_{setting}")


def _holds(out: Path, setting: str) -> bool:
    try:
        return json.loads((out / "corpus.json").read_text(encoding="utf-8")).get("setting") == setting
    except (OSError, ValueError):
        return False


def _build(corpus: Path, setting: str, out: Path, items: list[Item], workers: int | None,
           progress: bool | None) -> None:
    if setting == "multimodal":
        from ..multimodal import build_multimodal
        from .groups import input_set, trajectory_ids

        read = {t for item in items for t in trajectory_ids(input_set(item))}  # what the items read, no more
        build_multimodal(corpus, out, workers=workers, progress=progress, only=read)
    else:
        from .visual_grounding import build_visual_setting

        build_visual_setting(corpus, out, items, workers=workers, progress=progress)


def setting_corpus(corpus: str | Path, setting: str, items: list[Item], *, out: str | Path | None = None,
                   workers: int | None = None, progress: bool | None = None) -> Path:
    """The folder of `setting` for `corpus` (default: `setting_dir`), built or finished for `items`; a stale
    build of the same setting is deleted and rebuilt, with a warning. Returns the folder."""
    from ..multimodal import MultimodalError

    corpus = Path(corpus)
    out = Path(out) if out is not None else setting_dir(corpus, setting)
    try:
        _build(corpus, setting, out, items, workers, progress)
    except (MultimodalError, ValueError) as exc:
        if not _holds(out, setting):
            raise
        warnings.warn(f"{out}: rebuilding the {setting} setting ({exc})", stacklevel=2)
        shutil.rmtree(out)
        _build(corpus, setting, out, items, workers, progress)
    return out
