"""One persona's cases: Know, Act, and for each Know-pass / Act-fail case the two oracle reruns.

For each method: ingest the persona's ingest sessions (split.py); ask the Know questions (know.py);
for each act task, retrieve with the task's own prompt, infer preferences and act, several seeds per task
(act.py); read each dimension's memory runs and zero-memory runs together (act_reader.py, fit on the other
personas). Every case also gets the runs told the true tier (the oracle preference, made once per persona:
over all cases it is the Act test's ceiling), and a habit known but not acted on is rerun with the oracle
evidence (oracle.py) so the failure can be attributed (metrics.attribute). One row per (method, persona,
dimension), written to `units/<persona>/<method>.json` as soon as the method is done.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from ..behaviour.fingerprint import FEATURES, fingerprints
from ..bench.ground_truth import CorpusFacts, corpus_facts
from ..bench.inputs import TrajectoryStore
from ..bench.trace_observer import session_features
from ..engine.policy import NEUTRAL
from ..llm.tasks import ParseError
from ..memory.base import get_memory
from ..memory.filegramos.calibration import Calibration, load_calibration
from ..traces.schema import DIMENSION_CODES, Task
from ..util import atomic
from ..util.tokens import estimate_tokens
from . import act as acting
from .act_reader import ActReader, fit_act_reader, run_features
from .know import free_know_items, know_items, know_test
from .metrics import attribute
from .oracle import oracle_evidence, oracle_sessions
from .preferences import infer_preferences, stated_preference
from .split import ACT_RUNS, Split, plan_split

if TYPE_CHECKING:
    from ..llm.base import Backend


def persona_split(facts: CorpusFacts, pid: str, seed: int) -> Split:
    """The split over the tasks this persona has sessions of in the corpus (all 32 in a full corpus)."""
    return plan_split(pid, [facts.tasks[t] for t in sorted(facts.sessions[pid])], seed=seed)


@dataclass
class UnitState:
    corpus: Path
    facts: CorpusFacts
    store: TrajectoryStore
    backend: Backend
    calibration: Calibration
    features: pl.DataFrame  # every corpus session's trace features: what the Act reader is fit on

    @classmethod
    def load(cls, corpus: str | Path, backend: str, params: dict[str, Any]) -> UnitState:
        from ..llm import get_backend

        facts = corpus_facts(corpus)
        return cls(Path(corpus), facts, TrajectoryStore(corpus), get_backend(backend, **params), load_calibration(),
                   session_features(corpus, sorted(facts.persona_of)))


@dataclass(frozen=True)
class Given:
    """What one act condition hands the agent for one task: its folder key, the inferred tiers, any parse error."""

    key: str
    tiers: dict[str, str | None]
    error: str | None
    context: str


@dataclass
class Acting:
    """What one persona's act runs share: where they go, the agent and seed, the split, the Act reader fit
    without this persona, the prior of unknown dimensions, and every run's features once read."""

    state: UnitState
    out: Path
    agent: str
    seed: int
    persona: Any
    tasks: dict[str, Task]
    split: Split
    reader: ActReader
    prior: dict[str, dict[str, float]]
    act_runs: int = ACT_RUNS  # runs per dimension and condition (`Split.runs`): what the reader reads together
    features: dict[Path, pl.DataFrame] = field(default_factory=dict)
    givens: dict[str, Given] = field(default_factory=dict)

    def given(self, context: str) -> Given:
        """The tiers the agent reads from `context` (offline) and the folder its runs go to."""
        if context not in self.givens:
            tiers, error = dict.fromkeys(DIMENSION_CODES), None
            if self.agent == "offline" and context.strip():
                try:
                    tiers = infer_preferences(context, backend=self.state.backend)
                except ParseError as exc:
                    error = str(exc)[:300]
            key = acting.tiers_key(tiers) if self.agent == "offline" else acting.context_key(context)
            self.givens[context] = Given(key, tiers, error, context)
        return self.givens[context]

    def runs(self, per_task: dict[str, Given], dimension: str) -> list[Path]:
        """The act runs that read `dimension`, each under what its task was given (made when missing)."""
        return [acting.act(self.persona, self.tasks[task], self.out / "act" / self.agent / per_task[task].key, k,
                           seed=self.seed, workspaces=self.out / "workspaces", agent=self.agent,
                           tiers=per_task[task].tiers, prior=self.prior, context=per_task[task].context,
                           backend=self.state.backend)
                for task, k in self.split.runs(dimension, self.act_runs)]

    def read(self, per_task: dict[str, Given], dimension: str) -> tuple[acting.Observed, list[Path]]:
        """What `dimension`'s act runs show of the persona's tier, and the runs' folders."""
        paths = self.runs(per_task, dimension)
        new = [p for p in paths if p not in self.features]
        if new:
            for path, row in zip(new, run_features(new).iter_slices(1), strict=True):
                self.features[path] = row
        features = pl.concat([self.features[p] for p in paths])
        truth = self.persona.tiers[dimension].value
        return acting.Observed(self.reader.read(features, dimension),
                               self.reader.share(features, dimension, truth)), paths

    def everywhere(self, context: str) -> dict[str, Given]:
        """The same context for every act task (zero memory, oracle evidence)."""
        return dict.fromkeys(self.split.act_tasks, self.given(context))

    def told(self, dimension: str, tier: str) -> dict[str, Given]:
        """The oracle preference for every act task: the offline agent is handed the tier itself (no reading
        of a text in between: the oracle bypasses comprehension), the LLM agent the plain statement."""
        if self.agent != "offline":
            return self.everywhere(stated_preference(dimension, tier))
        tiers = {d: tier if d == dimension else None for d in DIMENSION_CODES}
        given = Given(acting.tiers_key(tiers), tiers, None, stated_preference(dimension, tier))
        return dict.fromkeys(self.split.act_tasks, given)

    def rel(self, path: Path) -> str:
        return path.relative_to(self.out).as_posix()


def _oracle_evidence(acting_: Acting, method: str, params: dict[str, Any], d: str, zero,
                     stated_pass: bool) -> dict[str, Any]:
    """The oracle-evidence rerun of one Know-pass / Act-fail case, and its attribution."""
    state, truth, split = acting_.state, acting_.persona.tiers[d].value, acting_.split
    trajs = [state.store.anonymous(t) for t in oracle_sessions(state.facts, split, d)]
    evidence = oracle_evidence(method, params, trajs, backend=state.backend)
    reading, paths = acting_.read(acting_.everywhere(evidence), d)
    passed = acting.act_pass(reading, zero, truth)
    return {"oracle_evidence_pass": passed, "attribution": attribute(passed, stated_pass),
            "oracle_evidence_tokens": estimate_tokens(evidence), "oracle_evidence_trajectory": acting_.rel(paths[0])}


def observer_tiers(state: UnitState, split: Split) -> dict[str, str]:
    """The ideal observer of the Know test: the calibrated reader on the mean fingerprint of exactly the
    ingested sessions. Where it misses the persona's tier, the traces themselves do not show it (a ceiling
    for Know, independent of any memory)."""
    trajs = [state.store.get(state.facts.sessions[split.persona][t]) for t in split.ingest]
    means = fingerprints(trajs).select(pl.col(list(FEATURES)).mean()).row(0, named=True)
    return {r.dimension: r.tier for r in state.calibration.read(means)}


def _inferred(per_task: dict[str, Given], split: Split, d: str) -> str:
    """The tier the agent inferred for `d` over the dimension's act tasks (the most common; unknown if none)."""
    counts = Counter(per_task[t].tiers.get(d) or "unknown" for t in split.act[d])
    return max(counts, key=lambda tier: (counts[tier], tier != "unknown", tier))


def _reading_columns(prefix: str, seen: acting.Observed, truth: str) -> dict[str, Any]:
    """A condition's reading: the tier its runs read as together, that reading's probability of the true tier
    and all three, and the share of runs read as the true tier one by one."""
    return {f"{prefix}_tier": seen.reading.tier, f"{prefix}_p_true": seen.reading.probabilities[truth],
            f"{prefix}_probabilities": json.dumps(seen.reading.probabilities, sort_keys=True),
            f"{prefix}_share": seen.share}


def _method_rows(acting_: Acting, method: str, zero: dict[str, tuple], stated: dict[str, tuple],
                 observer: dict[str, str]) -> list[dict[str, Any]]:
    state, persona, split = acting_.state, acting_.persona, acting_.split
    memory = get_memory(method)
    params = {k: v for k, v in memory.params().items() if k != "method"}
    trajs = [state.store.anonymous(state.facts.sessions[persona.id][t]) for t in split.ingest]
    with state.backend.phase("ingest"):
        memory.ingest(trajs, backend=state.backend)
    know = know_test(memory, know_items(persona, seed=acting_.seed) + free_know_items(persona), backend=state.backend)
    contexts = {t: memory.retrieve(acting_.tasks[t].prompt_for(persona), backend=state.backend)
                for t in split.act_tasks}
    per_task = {t: acting_.given(contexts[t].text) for t in split.act_tasks}
    rows = []
    for d in DIMENSION_CODES:
        truth = persona.tiers[d].value
        mine, paths = acting_.read(per_task, d)
        (zero_reading, zero_paths), (stated_reading, stated_paths) = zero[d], stated[d]
        stated_pass = acting.act_pass(stated_reading, zero_reading, truth)
        dim_know = next(k for k in know if k["dimension"] == d and k["attribute"] is None)
        attrs = [k for k in know if k["dimension"] == d and k["attribute"] is not None and not k["free_form"]]
        free = next((k for k in know if k["dimension"] == d and k["free_form"]), None)
        errors = sorted({per_task[t].error for t in split.act[d] if per_task[t].error})
        row = {"method": method, "params": json.dumps(params, sort_keys=True), "backend": state.backend.name,
               "model": state.backend.model, "agent": acting_.agent, "seed": acting_.seed, "persona": persona.id,
               "dimension": d, "true_tier": truth, "neutral_tier": NEUTRAL[d].value,
               "true_is_neutral": truth == NEUTRAL[d].value, "evidence": split.evidence[d],
               "evidence_sessions": split.evidence_sessions[d], "ingest_sessions": len(split.ingest),
               "act_task": split.act[d][0], "act_tasks": " ".join(split.act[d]), "act_runs": len(paths),
               "observer_tier": observer[d],
               "observer_pass": observer[d] == truth,
               "know_pass": bool(dim_know["is_correct"]), "know_answer": dim_know["answer"],
               "know_error": dim_know["error"], "know_attributes_passed": sum(bool(k["is_correct"]) for k in attrs),
               "know_attributes_total": len(attrs), "know_context_tokens": dim_know["context_tokens"],
               "know_free_pass": None if free is None else bool(free["is_correct"]),
               "know_free_likert": None if free is None else free["likert"],
               "know_free_answer": None if free is None else free["answer"],
               "act_context_tokens": round(sum(contexts[t].tokens for t in split.act[d]) / len(split.act[d])),
               "inferred_tier": _inferred(per_task, split, d),
               "inferred_tiers": " ".join(f"{t}:{per_task[t].tiers.get(d) or 'x'}" for t in split.act[d]),
               "infer_error": "; ".join(errors) or None,
               **_reading_columns("memory", mine, truth), **_reading_columns("zero", zero_reading, truth),
               "act_pass": acting.act_pass(mine, zero_reading, truth),
               "act_pass_strict": acting.act_pass_strict(mine, zero_reading, truth),
               "memory_trajectory": acting_.rel(paths[0]), "zero_trajectory": acting_.rel(zero_paths[0]),
               "oracle_preference_trajectory": acting_.rel(stated_paths[0]),
               "oracle_preference_pass": stated_pass,
               "oracle_preference_strict": acting.act_pass_strict(stated_reading, zero_reading, truth),
               **_reading_columns("oracle_preference", stated_reading, truth),
               "oracle_evidence_pass": None, "attribution": None, "oracle_evidence_tokens": None,
               "oracle_evidence_trajectory": None}
        if row["know_pass"] and not row["act_pass"]:
            row.update(_oracle_evidence(acting_, method, params, d, zero_reading, stated_pass))
        rows.append(row)
    return rows


def persona_rows(state: UnitState, out: Path, pid: str, methods: tuple[str, ...], *, agent: str, seed: int,
                 act_runs: int = ACT_RUNS) -> None:
    """Every method's rows for one persona, skipping methods whose rows are already written."""
    todo = [m for m in methods if not (out / "units" / pid / f"{m}.json").is_file()]
    if not todo:
        return
    persona = state.facts.personas[pid]
    split = persona_split(state.facts, pid, seed)
    reader = fit_act_reader(state.features, state.facts, pid, runs=act_runs, seed=seed)
    prior = acting.default_prior({p: state.facts.tiers(p) for p in state.facts.sessions}, pid)
    acting_ = Acting(state, out, agent, seed, persona, dict(state.facts.tasks), split, reader, prior, act_runs)
    state.store.preload([state.facts.sessions[pid][t] for t in split.ingest])
    zero = {d: acting_.read(acting_.everywhere(""), d) for d in DIMENSION_CODES}
    stated = {d: acting_.read(acting_.told(d, persona.tiers[d].value), d) for d in DIMENSION_CODES}
    observer = observer_tiers(state, split)
    for method in todo:
        rows = _method_rows(acting_, method, zero, stated, observer)
        atomic.write_json(out / "units" / pid / f"{method}.json", rows)


def act_context(corpus: str | Path, case: dict[str, Any], *, backend: Backend | None = None) -> str:
    """The context a case's memory runs on its first act task (`act_task`) acted on, recomputed (ingest and
    retrieval are deterministic offline)."""
    from ..llm import get_backend

    backend = backend or get_backend(case.get("backend", "offline"))
    facts, store = corpus_facts(corpus), TrajectoryStore(corpus)
    persona = facts.personas[case["persona"]]
    split = persona_split(facts, persona.id, int(case["seed"]))
    memory = get_memory(case["method"], **json.loads(case.get("params") or "{}"))
    memory.ingest([store.anonymous(facts.sessions[persona.id][t]) for t in split.ingest], backend=backend)
    return memory.retrieve(facts.tasks[case["act_task"]].prompt_for(persona), backend=backend).text
