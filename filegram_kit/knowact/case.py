"""One persona's cases: Know, Act, and for each Know-pass / Act-fail case the two oracle reruns.

For each method: ingest the persona's ingest sessions (split.py); ask the Know questions (know.py);
for each act task, retrieve with the task's own prompt, infer preferences and act (act.py); read
the memory run and the zero-memory run on the case's dimension; every case also gets the act run told
the true tier (the oracle preference, made once per persona: over all cases it is the Act test's
ceiling), and a habit known but not acted on is rerun with the oracle evidence (oracle.py) so the
failure can be attributed (metrics.attribute). One row per (method, persona, dimension), written to
`units/<persona>/<method>.json` as soon as the method is done.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from .. import atomic
from ..bench.facts import CorpusFacts, corpus_facts
from ..bench.inputs import TrajectoryStore
from ..engine.policy import NEUTRAL
from ..fingerprint import FEATURES, fingerprints
from ..llm.tasks import ParseError
from ..memory.base import get_memory
from ..memory.filegramos.calibration import Calibration, load_calibration
from ..schema import DIMENSION_CODES, Task
from ..tokens import estimate_tokens
from . import act as acting
from .know import free_know_items, know_items, know_test
from .metrics import attribute
from .oracle import oracle_evidence, oracle_sessions
from .preferences import infer_preferences, stated_preference
from .split import Split, plan_split


def persona_split(facts: CorpusFacts, pid: str, seed: int) -> Split:
    """The split over the tasks this persona has sessions of in the corpus (all 32 in a full corpus)."""
    return plan_split(pid, [facts.tasks[t] for t in sorted(facts.sessions[pid])], seed=seed)


@dataclass
class UnitState:
    corpus: Path
    facts: CorpusFacts
    store: TrajectoryStore
    backend: Any
    calibration: Calibration

    @classmethod
    def load(cls, corpus: str | Path, backend: str, params: dict[str, Any]) -> UnitState:
        from ..llm import get_backend

        return cls(Path(corpus), corpus_facts(corpus), TrajectoryStore(corpus), get_backend(backend, **params),
                   load_calibration())


@dataclass
class Acting:
    """What one persona's act runs share: where they go, the agent and seed, and the reading of each run."""

    state: UnitState
    out: Path
    agent: str
    seed: int
    persona: Any
    tasks: dict[str, Task]
    readings: dict[tuple[Path, str], Any] = field(default_factory=dict)  # zero / stated runs serve every method

    def run(self, condition: str, task: str, context: str) -> tuple[Path, dict[str, str | None], str | None]:
        """(trajectory, the tiers inferred from the context, parse error) of one act run."""
        tiers, error = dict.fromkeys(DIMENSION_CODES), None
        if self.agent == "offline":
            try:
                tiers = infer_preferences(context, backend=self.state.backend)
            except ParseError as exc:
                error = str(exc)[:300]
        path = acting.act(self.persona, self.tasks[task], self.out / "act" / condition, seed=self.seed,
                          workspaces=self.out / "workspaces", agent=self.agent, tiers=tiers, context=context,
                          backend=self.state.backend)
        return path, tiers, error

    def reading(self, path: Path, dimension: str):
        if (path, dimension) not in self.readings:
            self.readings[path, dimension] = acting.read_dimension(path, dimension, self.state.calibration)
        return self.readings[path, dimension]

    def rel(self, path: Path) -> str:
        return path.relative_to(self.out).as_posix()


def _oracle_evidence(acting_: Acting, method: str, params: dict[str, Any], split: Split, d: str, zero,
                     stated_pass: bool) -> dict[str, Any]:
    """The oracle-evidence rerun of one Know-pass / Act-fail case, and its attribution."""
    state, truth = acting_.state, acting_.persona.tiers[d].value
    trajs = [state.store.anonymous(t) for t in oracle_sessions(state.facts, split, d)]
    evidence = oracle_evidence(method, params, trajs, backend=state.backend)
    path, _, _ = acting_.run(f"{method}/oracle_evidence_{d}", split.act[d], evidence)
    passed = acting.act_pass(acting_.reading(path, d), zero, truth)
    return {"oracle_evidence_pass": passed, "attribution": attribute(passed, stated_pass),
            "oracle_evidence_tokens": estimate_tokens(evidence), "oracle_evidence_trajectory": acting_.rel(path)}


def observer_tiers(state: UnitState, split: Split) -> dict[str, str]:
    """The ideal observer of the Know test: the calibrated reader on the mean fingerprint of exactly the
    ingested sessions. Where it misses the persona's tier, the traces themselves do not show it (a ceiling
    for Know, independent of any memory)."""
    trajs = [state.store.get(state.facts.sessions[split.persona][t]) for t in split.ingest]
    means = fingerprints(trajs).select(pl.col(list(FEATURES)).mean()).row(0, named=True)
    return {r.dimension: r.tier for r in state.calibration.read(means)}


def _stated_runs(acting_: Acting, split: Split) -> dict[str, Path]:
    """Per dimension, the act run told the true tier (method-independent, so made once per persona): it
    attributes failures and, over every case, measures the Act test's ceiling."""
    truth = acting_.persona.tiers
    return {d: acting_.run(f"oracle_preference_{d}", split.act[d], stated_preference(d, truth[d].value))[0]
            for d in DIMENSION_CODES}


def _method_rows(acting_: Acting, method: str, split: Split, zero: dict[str, Path], stated: dict[str, Path],
                 observer: dict[str, str]) -> list[dict[str, Any]]:
    state, persona = acting_.state, acting_.persona
    memory = get_memory(method)
    params = {k: v for k, v in memory.params().items() if k != "method"}
    trajs = [state.store.anonymous(state.facts.sessions[persona.id][t]) for t in split.ingest]
    with state.backend.phase("ingest"):
        memory.ingest(trajs, backend=state.backend)
    know = know_test(memory, know_items(persona, seed=acting_.seed) + free_know_items(persona), backend=state.backend)
    contexts = {t: memory.retrieve(acting_.tasks[t].prompt_for(persona), backend=state.backend)
                for t in split.act_tasks}
    runs = {t: acting_.run(f"{method}/memory", t, contexts[t].text) for t in split.act_tasks}
    rows = []
    for d in DIMENSION_CODES:
        truth, task = persona.tiers[d].value, split.act[d]
        path, tiers, error = runs[task]
        mine, zero_reading = acting_.reading(path, d), acting_.reading(zero[task], d)
        stated_pass = acting.act_pass(acting_.reading(stated[d], d), zero_reading, truth)
        dim_know = next(k for k in know if k["dimension"] == d and k["attribute"] is None)
        attrs = [k for k in know if k["dimension"] == d and k["attribute"] is not None and not k["free_form"]]
        free = next((k for k in know if k["dimension"] == d and k["free_form"]), None)
        row = {"method": method, "params": json.dumps(params, sort_keys=True), "backend": state.backend.name,
               "model": state.backend.model, "agent": acting_.agent, "seed": acting_.seed, "persona": persona.id,
               "dimension": d, "true_tier": truth, "neutral_tier": NEUTRAL[d].value,
               "true_is_neutral": truth == NEUTRAL[d].value, "evidence": split.evidence[d],
               "evidence_sessions": split.evidence_sessions[d], "ingest_sessions": len(split.ingest),
               "act_task": task, "observer_tier": observer[d], "observer_pass": observer[d] == truth,
               "know_pass": bool(dim_know["correct"]), "know_answer": dim_know["answer"],
               "know_error": dim_know["error"], "know_attributes_correct": sum(bool(k["correct"]) for k in attrs),
               "know_attributes_total": len(attrs), "know_context_tokens": dim_know["context_tokens"],
               "know_free_pass": None if free is None else bool(free["correct"]),
               "know_free_likert": None if free is None else free["likert"],
               "know_free_answer": None if free is None else free["answer"],
               "act_context_tokens": contexts[task].tokens, "inferred_tier": tiers.get(d) or "unknown",
               "infer_error": error, "memory_tier": mine.tier,
               "memory_distance": round(acting.distance(mine, truth), 4),
               "zero_tier": zero_reading.tier, "zero_distance": round(acting.distance(zero_reading, truth), 4),
               "act_pass": acting.act_pass(mine, zero_reading, truth), "memory_trajectory": acting_.rel(path),
               "zero_trajectory": acting_.rel(zero[task]), "oracle_preference_pass": stated_pass,
               "oracle_preference_trajectory": acting_.rel(stated[d]), "oracle_evidence_pass": None,
               "attribution": None, "oracle_evidence_tokens": None, "oracle_evidence_trajectory": None}
        if row["know_pass"] and not row["act_pass"]:
            row.update(_oracle_evidence(acting_, method, params, split, d, zero_reading, stated_pass))
        rows.append(row)
    return rows


def persona_rows(state: UnitState, out: Path, pid: str, methods: tuple[str, ...], *, agent: str, seed: int) -> None:
    """Every method's rows for one persona, skipping methods whose rows are already written."""
    persona = state.facts.personas[pid]
    split = persona_split(state.facts, pid, seed)
    acting_ = Acting(state, out, agent, seed, persona, dict(state.facts.tasks))
    todo = [m for m in methods if not (out / "units" / pid / f"{m}.json").is_file()]
    if not todo:
        return
    state.store.preload([state.facts.sessions[pid][t] for t in split.ingest])
    zero = {t: acting_.run("zero_memory", t, "")[0] for t in split.act_tasks}
    stated, observer = _stated_runs(acting_, split), observer_tiers(state, split)
    for method in todo:
        rows = _method_rows(acting_, method, split, zero, stated, observer)
        atomic.write_json(out / "units" / pid / f"{method}.json", rows)


def act_context(corpus: str | Path, case: dict[str, Any], *, backend: Any = None) -> str:
    """The context a case's memory run acted on, recomputed (ingest and retrieval are deterministic offline)."""
    from ..llm import get_backend

    backend = backend or get_backend(case.get("backend", "offline"))
    facts, store = corpus_facts(corpus), TrajectoryStore(corpus)
    persona = facts.personas[case["persona"]]
    split = persona_split(facts, persona.id, int(case["seed"]))
    memory = get_memory(case["method"], **json.loads(case.get("params") or "{}"))
    memory.ingest([store.anonymous(facts.sessions[persona.id][t]) for t in split.ingest], backend=backend)
    return memory.retrieve(facts.tasks[case["act_task"]].prompt_for(persona), backend=backend).text
