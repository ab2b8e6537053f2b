"""One benchmark item, in the release's QA row schema (spec 9.3), and the bench's fixed vocabulary.

On disk every field is a string (the release's parquet): `input_trajectories`, `choices` and
`metadata` are JSON-encoded, `correct` is the option letter ("B") for multiple choice and the
reference text for free-form items. In memory an `Item` holds them decoded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..llm.tasks import LETTERS

FIELDS = ("question_id", "track", "sub_track", "sub_class", "channel", "profile_id", "input_trajectories",
          "question", "choices", "correct", "metadata")
CHANNELS = ("procedural", "semantic", "episodic")
# sub_track -> (track, paper column, paper count, options per item (min, max); (0, 0) = free-form)
SUB_TRACKS: dict[str, tuple[str, str, int, tuple[int, int]]] = {
    "attribute_recognition": ("T1_understanding", "AttrRec", 326, (2, 3)),
    "behavioral_fingerprint": ("T1_understanding", "BehavFP", 560, (4, 4)),
    "profile_reconstruction": ("T1_understanding", "ProfRec", 320, (0, 0)),
    "behavioral_inference": ("T2_reasoning", "BehavInf", 560, (4, 4)),
    "trace_disentanglement": ("T2_reasoning", "TraceDis", 1134, (2, 4)),
    "anomaly_detection": ("T3_detection", "AnomDet", 815, (4, 6)),
    "shift_analysis": ("T3_detection", "ShiftAna", 288, (3, 6)),
    # Track 4: answered on a setting of their own (multimodal/: rendered outputs; a replayed screen recording)
    "file_grounding": ("T4_multimodal", "FileGrd", 550, (2, 6)),
    "visual_grounding": ("T4_multimodal", "VisGrd", 100, (0, 0)),
}
TRACKS = ("T1_understanding", "T2_reasoning", "T3_detection", "T4_multimodal")


@dataclass(frozen=True)
class Item:
    question_id: str
    track: str
    sub_track: str
    sub_class: str
    channel: str  # procedural | semantic | episodic
    profile_id: str  # the user the question is about (the target persona)
    input_trajectories: tuple[str, ...]  # trajectory ids the memory is built from
    question: str
    choices: tuple[str, ...]  # () for free-form
    correct: str  # option letter, or the reference answer of a free-form item
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def is_mcq(self) -> bool:
        return bool(self.choices)

    @property
    def answer_index(self) -> int:
        """0-based index of the correct option (multiple choice only)."""
        if not self.is_mcq:
            raise ValueError(f"{self.question_id}: free-form item has no option index")
        return LETTERS.index(self.correct)

    @property
    def chance(self) -> float:
        return 1.0 / len(self.choices) if self.choices else 0.0
