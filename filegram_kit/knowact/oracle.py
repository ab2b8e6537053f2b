"""The two oracle contexts of the failure attribution, for one Know-pass / Act-fail case.

- **Oracle evidence**: the ingested sessions where the dimension is most visible, serialised as the
  method would store them (`memory_text()` of the same method ingesting only those sessions), handed
  over whole: retrieval is bypassed. Visibility is ground truth the memory never sees: sessions whose
  trace expressed the persona's own tier on the dimension first (expressed.json), then by how strongly
  the task activates it (Table 10), then in task order.
- **Oracle preference**: the true tier stated plainly (`preferences.stated_preference`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..bench.ground_truth import CorpusFacts
from ..memory.base import get_memory
from .split import RANK, Split

if TYPE_CHECKING:
    from ..llm.base import Backend

ORACLE_SESSIONS = 3


def oracle_sessions(facts: CorpusFacts, split: Split, dimension: str, k: int = ORACLE_SESSIONS) -> list[str]:
    """Trajectory ids of the k ingested sessions that show the dimension best (see module docstring)."""
    pid = split.persona
    truth = facts.tiers(pid)[dimension]
    tids = [facts.sessions[pid][t] for t in split.ingest if t in facts.sessions[pid]]

    def visibility(tid: str) -> tuple:
        shown = facts.expressed[tid].tiers[dimension] == truth
        return (not shown, -RANK[facts.level(facts.task_of[tid], dimension)], facts.task_of[tid])

    return sorted(tids, key=visibility)[:k]


def oracle_evidence(method: str, params: dict[str, Any], trajs: list[Any], *, backend: Backend) -> str:
    """What `method` stores about these sessions alone, as text (its own serialisation, no retrieval)."""
    memory = get_memory(method, **params).ingest(trajs, backend=backend)
    return memory.memory_text()
