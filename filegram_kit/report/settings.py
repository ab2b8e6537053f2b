"""The settings of one `filegram reproduce` run: which backend answers, which item sets, which methods.

    FULL                       every paper table on the 640-trajectory corpus, offline (make reproduce)
    QUICK                      a documented subset: 5 personas x 32 tasks, item seed 0, the first 60 items of
                               each sub-task, 3 methods (about 2.5 min on 2 cores)
    FULL.with_backend("gemini")  the same run answered by a keyed backend (its rows and labels say so)

Corpus-backed artifacts take `settings=`; the settings are part of every step's key (provenance.py),
so a quick run never passes for a full one, and rows of another backend never for offline ones.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from ..bench.score import METHOD_LABELS

TABLE3_METHODS = tuple(METHOD_LABELS)  # the paper's 13, in its order
QUICK_PERSONAS = ("p1_methodical", "p3_efficient_executor", "p7_visual_reader", "p12_prolific_scanner",
                  "p8_minimal_editor")  # every tier of every dimension appears among them (Table 9)
QUICK_METHODS = ("no_context", "naive_rag", "filegramos")


@dataclass(frozen=True)
class RunSettings:
    backend: str = "offline"
    item_seeds: tuple[int, ...] = (0, 1, 2)  # Table 3: item sets answered together (ingests shared)
    pack_b_seeds: tuple[int, ...] = (0,)  # Table 3's style-pack-B check
    ablation_seeds: tuple[int, ...] = (0,)  # Tables 11, 13, 14 (FileGramOS variants)
    methods: tuple[str, ...] = TABLE3_METHODS
    workers: int = 2
    personas: tuple[str, ...] | None = None  # None: every persona of the default corpus
    limit: int | None = None  # items per sub-task of every bench step (None: all)
    quick: bool = False
    allow_errors: bool = False  # a bench step whose rows hold errors fails unless this is set (--allow-errors)

    def with_backend(self, backend: str) -> RunSettings:
        return replace(self, backend=backend)

    @property
    def executor(self) -> str:
        """Offline work is CPU-bound (processes); a remote backend waits on the network (threads)."""
        return "process" if self.backend == "offline" and self.workers > 1 else "thread"

    @property
    def ours(self) -> str:
        """How our rows are labelled: the backend is always named, so offline numbers never pass for an LLM's."""
        return f"ours ({self.backend} backend)"

    def as_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    def keyed(self) -> dict[str, Any]:
        """What a step's output depends on (workers do not change a deterministic run's rows; allow_errors only
        whether a step with error rows fails)."""
        return {k: v for k, v in self.as_dict().items() if k not in ("workers", "allow_errors")}


FULL = RunSettings()
QUICK = RunSettings(item_seeds=(0,), pack_b_seeds=(0,), ablation_seeds=(0,), methods=QUICK_METHODS,
                    personas=QUICK_PERSONAS, limit=60, quick=True)


def settings_of(settings: RunSettings | None) -> RunSettings:
    return FULL if settings is None else settings
