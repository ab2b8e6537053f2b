"""How a persona names files and lays out folders (dimension C and the naming attribute).

Systematic namers (L) use a date prefix and long descriptive names (>= 25 characters), semi-structured
ones (M) two or three words (12-25), ad-hoc ones (R) a short word (<= 12). Deeply nested organizers put
outputs three levels down, adaptive ones one level, flat ones in the root. The words, separators, date
format and folder names come from the agent's style pack (`style_packs.py`); the rules here do not.
Where a rule depends on a name's spelling (which groups win a tie, which files a sorted listing gives
first), it reads the pack-A spelling (`OfflineAgent.canonical`), so every pack behaves alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ..traces.schema import Tier
from .style_packs import PACK_A, PACKS, StylePack

if TYPE_CHECKING:
    from .agent import OfflineAgent

_STOP = {"and", "the", "of", "for", "into", "with", "a", "an", "to", "in", "on", "img", "dsc", "file", "copy",
         "final", "untitled", "document", "new", "v1", "v2", "v3", "tmp", "bak"}
# file kind -> extensions (kinds not listed are "misc"); the folder a kind goes to is the pack's label for it
EXT_GROUPS = {"images": {"png", "jpg", "jpeg", "gif", "svg"}, "audio": {"mp3", "wav", "m4a"},
              "video": {"mp4", "mkv", "mov"}, "email": {"eml"}, "calendar": {"ics"},
              "data": {"csv", "xlsx", "json"}, "documents": {"pdf", "docx", "pptx"}, "notes": {"md", "txt"}}


def slug_words(text: str) -> list[str]:
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", text)]
    return [w for w in words if w not in _STOP and len(w) > 1]


def file_name(ag: OfflineAgent, words: str, ext: str = "md", *, a_words: str | None = None) -> str:
    """A new file name for `words` in this persona's naming style.

    `a_words` are the same words in pack A (default `words`): the name they give is what the agent
    sorts this file by (`OfflineAgent.canonical`). Both spellings share one set of random draws.
    """
    tier, rng = ag.policy.naming, ag.rng
    ag.policy.note("naming")
    draw: tuple[str, str | int] = ("", "")
    if tier == Tier.R:
        if ag.policy.lang == "zh" and rng.random() < 0.4:
            draw = ("zh", int(rng.integers(len(ag.pack.short_zh))))
        else:
            draw = ("word", str(int(rng.integers(1, 4))) if rng.random() < 0.3 else "")
    name = f"{_spell(ag, ag.pack, words, draw)}.{ext}"
    if ag.pack is not PACK_A:
        ag.spelling[name] = f"{_spell(ag, PACK_A, words if a_words is None else a_words, draw)}.{ext}"
    return name


def _spell(ag: OfflineAgent, pack: StylePack, words: str, draw: tuple[str, str | int]) -> str:
    persona_sep, tier = ag.policy.separator, ag.policy.naming
    tokens = pack.cased(slug_words(words) or [pack.fallback_word], persona_sep)
    sep = pack.separator(persona_sep)
    if tier == Tier.L:
        day = datetime.fromtimestamp(ag.clock.now() / 1000, tz=UTC).strftime(pack.date_format)
        name = sep.join([day, *tokens[:5]])
        if len(name) < 25:
            name = sep.join([name, *pack.cased(pack.filler, persona_sep)][: 2 + (len(name) < 18)])
        return name
    if tier == Tier.M:
        return sep.join(tokens[:3])[:25]
    if draw[0] == "zh":
        return pack.short_zh[int(draw[1])]
    return tokens[0][:8] + str(draw[1])


@dataclass(frozen=True)
class FolderPlan:
    main: str  # where the main output goes ("." = sandbox root)
    figures: str
    aux: str
    zh: bool = False
    pack: StylePack = PACK_A

    @staticmethod
    def join(folder: str, name: str) -> str:
        return name if folder in (".", "") else f"{folder}/{name}"

    def group(self, path: str, depth: int, seen: str = "", existing: frozenset[str] = frozenset()) -> str:
        """The folder a loose workspace file belongs in, `depth` levels deep; `seen` is what the agent
        learned when it opened the file (a photo's caption says more than 'IMG_4132'). A kind's folder
        at the root reuses one of `existing` (the root's folders) that any pack would name so."""
        pack = self.pack
        ext = PurePosixPath(path).suffix.lstrip(".").lower()
        kind = next((g for g, exts in EXT_GROUPS.items() if ext in exts), "misc")
        topic = next(iter(slug_words(seen) + slug_words(PurePosixPath(path).stem)), pack.group_label("misc", False))
        if depth > 2:
            return "/".join([pack.folders["archive"], pack.group_label(kind, self.zh), topic])
        names = [pack.group_label(kind, self.zh)] + [p.group_label(kind, self.zh) for p in PACKS.values()]
        kind_name = next((n for n in names if n in existing), names[0])
        return kind_name if depth <= 1 else f"{kind_name}/{topic}"


def folder_plan(ag: OfflineAgent, base: str) -> FolderPlan:
    """Where outputs go; `base` is a folder role ("output", "archive"), named by the agent's pack."""
    tier, pack = ag.policy.shown["C"], ag.pack
    zh = ag.policy.lang == "zh" and ag.policy.naming == Tier.R
    base, folders = pack.folders[base], pack.folders
    if tier == Tier.L:
        section = slug_words(ag.task.description)[:1] or [folders["work"]]
        root = f"{base}/{section[0]}"
        return FolderPlan(f"{root}/{folders['final']}", f"{root}/{folders['figures']}", f"{root}/{folders['appendix']}",
                          zh, pack)
    if tier == Tier.M:
        roll = ag.rng.random()
        main = "." if roll < 0.3 else base if roll < 0.75 else folders["reports"]
        return FolderPlan(main, f"{main}/{folders['figures']}" if ag.policy.int("dir_depth") > 1 else main, main, zh,
                          pack)
    return FolderPlan(".", ".", ".", zh, pack)
