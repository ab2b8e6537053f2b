"""How a persona names files and lays out folders (dimension C and the naming attribute).

Systematic namers (L) use a date prefix and long descriptive names (>= 25 characters), semi-structured
ones (M) two or three words (12-25), ad-hoc ones (R) a short word (<= 12). Deeply nested organizers put
outputs three levels down, adaptive ones one level, flat ones in the root.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ..schema import Tier

if TYPE_CHECKING:
    from .agent import OfflineAgent

_STOP = {"and", "the", "of", "for", "into", "with", "a", "an", "to", "in", "on", "img", "dsc", "file", "copy",
         "final", "untitled", "document", "new", "v1", "v2", "v3", "tmp", "bak"}
EXT_GROUPS = {"images": {"png", "jpg", "jpeg", "gif", "svg"}, "audio": {"mp3", "wav", "m4a"},
              "video": {"mp4", "mkv", "mov"}, "email": {"eml"}, "calendar": {"ics"},
              "data": {"csv", "xlsx", "json"}, "documents": {"pdf", "docx", "pptx"}, "notes": {"md", "txt"}}
ZH_GROUPS = {"images": "图片", "audio": "音频", "video": "视频", "email": "邮件", "calendar": "日程", "data": "数据",
             "documents": "文档", "notes": "笔记", "misc": "其他"}
SHORT_ZH = ["笔记", "总结", "报告", "整理", "记录"]


def slug_words(text: str) -> list[str]:
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", text)]
    return [w for w in words if w not in _STOP and len(w) > 1]


def file_name(ag: OfflineAgent, words: str, ext: str = "md") -> str:
    """A new file name for `words` in this persona's naming style."""
    tokens = slug_words(words) or ["notes"]
    sep, tier, rng = ag.policy.separator, ag.policy.naming, ag.rng
    if tier == Tier.L:
        day = datetime.fromtimestamp(ag.clock.now() / 1000, tz=UTC).strftime("%Y-%m-%d")
        name = sep.join([day, *tokens[:5]])
        if len(name) < 25:
            name = sep.join([name, "detailed", "report"][: 2 + (len(name) < 18)])
    elif tier == Tier.M:
        name = sep.join(tokens[:3])[:25]
    elif ag.policy.lang == "zh" and rng.random() < 0.4:
        name = SHORT_ZH[int(rng.integers(len(SHORT_ZH)))]
    else:
        name = tokens[0][:8] + (str(int(rng.integers(1, 4))) if rng.random() < 0.3 else "")
    return f"{name}.{ext}"


@dataclass(frozen=True)
class FolderPlan:
    main: str  # where the main output goes ("." = sandbox root)
    figures: str
    aux: str
    zh: bool = False

    @staticmethod
    def join(folder: str, name: str) -> str:
        return name if folder in (".", "") else f"{folder}/{name}"

    def group(self, path: str, depth: int, seen: str = "") -> str:
        """The folder a loose workspace file belongs in, `depth` levels deep; `seen` is what the agent
        learned when it opened the file (a photo's caption says more than 'IMG_4132')."""
        ext = PurePosixPath(path).suffix.lstrip(".").lower()
        kind = next((g for g, exts in EXT_GROUPS.items() if ext in exts), "misc")
        topic = next(iter(slug_words(seen) + slug_words(PurePosixPath(path).stem)), "misc")
        kind_name = ZH_GROUPS[kind] if self.zh else kind
        parts = [kind_name] if depth <= 1 else [kind_name, topic] if depth == 2 else ["archive", kind_name, topic]
        return "/".join(parts)


def folder_plan(ag: OfflineAgent, base: str) -> FolderPlan:
    tier = ag.policy.shown["C"]
    zh = ag.policy.lang == "zh" and ag.policy.naming == Tier.R
    if tier == Tier.L:
        section = slug_words(ag.task.description)[:1] or ["work"]
        root = f"{base}/{section[0]}"
        return FolderPlan(f"{root}/final", f"{root}/figures", f"{root}/appendix", zh)
    if tier == Tier.M:
        roll = ag.rng.random()
        main = "." if roll < 0.3 else base if roll < 0.75 else "reports"
        return FolderPlan(main, f"{main}/figures" if ag.policy.int("dir_depth") > 1 else main, main, zh)
    return FolderPlan(".", ".", ".", zh)
