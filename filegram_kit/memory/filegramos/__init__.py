"""FileGramOS (paper §5): memory built bottom-up from atomic file actions and content deltas.

    memory = FileGramOS().ingest(trajs, backend=get_backend("offline"))
    memory.retrieve("How deeply does this user nest folders?", backend=backend).text

Stage 1 (engram.py): one Engram per session: procedural (17-D fingerprint + extended features),
semantic (language, file types, naming, style descriptor, 800-char chunks), episodic (2-5
narrated episodes). Stage 2 (channels.py): procedural statistics and L/M/R readings, a chunk index
and style summary, episode and session clusters with drift flags. Stage 3 (retrieve.py): the
query picks target dimensions; the context concatenates the three channel blocks in fixed order.
Distributional statistics are kept at ingest; abstraction is deferred to query time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...behaviour.habit import habit_drift
from ...behaviour.session_drift import DETECTORS, unparsed_judgements
from ...traces.schema import Trajectory
from ..base import Context, MemorySystem, check_no_ground_truth, one_user
from ..serialize import cleaned
from ..stages import metered_ingest
from .calibration import Calibration, load_calibration
from .channels import MAX_CHUNKS, consolidate
from .engram import encode
from .retrieve import BLOCK_TITLES, Knobs, build_context, target_dimensions

if TYPE_CHECKING:
    from ...llm.base import Backend

__all__ = ["BLOCK_TITLES", "FileGramOS", "Knobs", "target_dimensions"]


class FileGramOS(MemorySystem):
    """The paper's memory. Parameters: every `Knobs` field (retrieval, Table 13/14), plus
    tau (deviation flag threshold), max_chunks (semantic index size), seed, calibration
    (a path or a `Calibration`; default: the packaged one), and detector: which sessions the episodic
    channel calls unlike the user ("fingerprint": the 17-D deviation, paper Eq. 1; "habit": the habit
    model's surprise per action, `filegram_kit.behaviour.habit`; "both": flagged by either)."""

    name = "filegramos"

    def __init__(self, *, tau: float = 1.5, max_chunks: int = MAX_CHUNKS, seed: int = 0,
                 calibration: str | Path | Calibration | None = None, progress: bool | None = False,
                 detector: str = "fingerprint", **knobs: Any):
        unknown = sorted(set(knobs) - set(Knobs.names()))
        if unknown:
            raise TypeError(f"FileGramOS: unknown parameter(s) {unknown}; knobs: {', '.join(Knobs.names())}")
        if "channels" in knobs:
            knobs["channels"] = tuple(knobs["channels"])
        self.knobs = Knobs(**knobs)  # validates now, not at the first query
        if detector not in DETECTORS:
            raise ValueError(f"FileGramOS: detector must be one of {', '.join(DETECTORS)}, got {detector!r}")
        self.tau, self.max_chunks, self.seed = float(tau), int(max_chunks), int(seed)
        self.calibration, self.progress, self.detector = calibration, progress, detector
        calib = "custom" if isinstance(calibration, Calibration) else None if calibration is None else str(calibration)
        # the default detector is left out of the parameters: memories (and results) made before it existed
        # keep their keys
        extra = {} if detector == "fingerprint" else {"detector": detector}
        super().__init__(**asdict(self.knobs), tau=self.tau, max_chunks=self.max_chunks, seed=self.seed,
                         calibration=calib, **extra)

    def ingest_params(self) -> dict[str, Any]:
        """Only these shape the ingested memory; every `Knobs` field is read at retrieval (Tables 13 and 14)."""
        return {k: v for k, v in self.params().items() if k not in Knobs.names()}

    def with_knobs(self, **knobs: Any) -> FileGramOS:
        """The same ingested memory read with other retrieval knobs (ingest-time work is reused)."""
        other = FileGramOS(tau=self.tau, max_chunks=self.max_chunks, seed=self.seed, calibration=self.calibration,
                           progress=self.progress, detector=self.detector, **{**asdict(self.knobs), **knobs})
        return other.adopt(self) if getattr(self, "ingested_", False) else other

    def _calibration(self) -> Calibration:
        if isinstance(self.calibration, Calibration):
            return self.calibration
        return load_calibration(self.calibration)

    def ingest(self, trajs: Iterable[Trajectory], *, backend: Backend) -> FileGramOS:
        items = check_no_ground_truth(trajs)
        self.user_ = one_user(items)
        sessions = cleaned(items)
        with metered_ingest(self, backend):
            self.engrams_ = encode(sessions, backend, progress=self.progress)
            self.parse_failures_ = sum(e.parse_failures for e in self.engrams_)
            habit = None if self.detector == "fingerprint" else habit_drift(items, tau=self.tau)
            procedural, semantic, episodic = consolidate(self.engrams_, self._calibration(), backend, tau=self.tau,
                                                         max_chunks=self.max_chunks, seed=self.seed, habit=habit,
                                                         detector=self.detector)
        self.channels_ = {"procedural": procedural, "semantic": semantic, "episodic": episodic}
        self.parse_failures_ += unparsed_judgements(episodic.drift)  # each labelled "uncertain", see drift.py
        self.ingested_ = True
        return self

    def retrieve(self, query: str, *, backend: Backend) -> Context:
        self._check_ingested()
        if (self.knobs.top_chunks or self.knobs.top_episodes) and query.strip():
            with backend.phase("query"):
                vector = backend.embed([query], input_type="query")[0]
        else:
            vector = np.zeros(self._embedding_dim(), dtype=np.float32)
        return build_context(query, self.channels_, vector, self.knobs)

    def _embedding_dim(self) -> int:
        widths = [c.embeddings.shape[1] for c in (self.channels_["semantic"], self.channels_["episodic"])
                  if c.embeddings.ndim == 2 and c.embeddings.size]
        return max(widths, default=1)

    @property
    def drift_(self):
        """Per-session deviation, flag, task-adjusted deviation, judge label, top-3 shifted features."""
        self._check_ingested()
        return self.channels_["episodic"].drift

    @property
    def readings_(self):
        self._check_ingested()
        return self.channels_["procedural"].readings

    def memory_text(self) -> str:
        """Everything stored: all knobs at their most generous, every chunk and episode (Table 3 storage)."""
        self._check_ingested()
        semantic, episodic = self.channels_["semantic"], self.channels_["episodic"]
        everything = Knobs(display_chars=10**9, preview_chars=10**9, files_per_task=10**6, edit_chains=True,
                           top_chunks=len(semantic.chunks), top_episodes=len(episodic.episodes))
        return build_context("", self.channels_, np.zeros(self._embedding_dim(), dtype=np.float32), everything).text
