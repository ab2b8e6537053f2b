"""The settings of one `filegram reproduce` run: which backend answers, which item sets, which methods.

    FULL                       every paper table on the 640-trajectory corpus, offline (make reproduce)
    QUICK                      a documented subset: 4 personas x 32 tasks, item seed 0, the first 15 items of
                               each sub-task, 3 methods; Track 4 on one persona, KnowAct on two (about 2.5
                               min on 2 cores)
    FULL.with_backend("gemini")  the same run answered by a keyed backend (its rows and labels say so)

Corpus-backed artifacts take `settings=`; the settings are part of every step's key (provenance.py),
so a quick run never passes for a full one, and rows of another backend never for offline ones.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from ..bench.score import METHOD_LABELS

TABLE3_METHODS = tuple(METHOD_LABELS)  # the paper's 13, in its order
QUICK_PERSONAS = ("p1_methodical", "p3_efficient_executor", "p7_visual_reader",
                  "p8_minimal_editor")  # every tier of every dimension appears among them (Table 9)
QUICK_TRACK4_PERSONAS = ("p3_efficient_executor",)  # Track 4 renders and answers one persona's trajectories
QUICK_KNOWACT_PERSONAS = QUICK_PERSONAS[:2]  # one per core (each fits its Act reader on the other quick personas)
QUICK_METHODS = ("no_context", "naive_rag", "filegramos")


SPAWN_WORTH = 1_000  # answers below which an offline evaluation skips process workers (RunSettings.pool)


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
    track4_personas: tuple[str, ...] | None = None  # Track 4's items only of these personas (None: every one)
    knowact_personas: tuple[str, ...] | None = None  # the personas KnowAct diagnoses (None: `personas`)
    quick: bool = False
    allow_errors: bool = False  # a bench step whose rows hold errors fails unless this is set (--allow-errors)

    def with_backend(self, backend: str) -> RunSettings:
        return replace(self, backend=backend)

    def of_track4(self, items: list) -> list:
        """Of Track 4's items, those this run answers: only track4_personas' when set (QUICK: their trajectories
        are all the multimodal setting renders)."""
        return items if self.track4_personas is None else [i for i in items if i.profile_id in self.track4_personas]

    @property
    def executor(self) -> str:
        """Offline work is CPU-bound (processes); a remote backend waits on the network (threads)."""
        return "process" if self.backend == "offline" and self.workers > 1 else "thread"

    def pool(self, workers: int, answers: int) -> dict[str, Any]:
        """The executor and workers of one evaluation of `answers` answers (items x methods). Process workers
        start slowly (each spawn imports the package and loads the reader: about 2 s), so an offline evaluation
        of fewer than SPAWN_WORTH answers runs in this process: the same rows (no row depends on the workers),
        sooner (a quick run's 60 File Grounding items x 3 methods: 2 s in two processes, under 1 s here)."""
        if workers > 1 and self.executor == "process" and answers < SPAWN_WORTH:
            return {"executor": "thread", "workers": 1}
        return {"executor": self.executor if workers > 1 else "thread", "workers": workers}

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
                    personas=QUICK_PERSONAS, limit=15, track4_personas=QUICK_TRACK4_PERSONAS,
                    knowact_personas=QUICK_KNOWACT_PERSONAS, quick=True)


def settings_of(settings: RunSettings | None) -> RunSettings:
    return FULL if settings is None else settings
