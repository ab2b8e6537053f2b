"""Control rows for Table 3: what a score means is read against them, and they are never ranked.

- `chance`: the expected score of a uniform guess (1 / options per item): the floor every column is read against.
- `choices_only`: the persona-grouped, cross-validated adversary that sees the options and nothing
  else (adversary.py). A method near it has learnt nothing from memory.
- `observer_traces`: the ideal observer of the traces alone (trace_observer.py): each session's tiers and
  attributes read from its features by models fit on the other personas, in the same observer rules. Its
  accuracy is the ceiling a perfect memory could reach; a column where it is near chance is one the traces
  do not carry.
- `observer_engine`: the ideal observer of what the engine recorded as expressed (observer.py, `expressed.json`):
  the generator keeps only items it answers as keyed, so it scores 100 by design. It says the engine expressed
  a difference, not that the traces show it.
- `oracle`: the ground truth (persona tiers, perturbation schedule) read directly.
- `oracle_context`: the ground truth written as a plain-language context ("this user reads files
  one by one ...") and answered by the shared reader: the reader's ceiling with a perfect memory.
  It runs through the backend like any method, so with an API backend it costs reader calls.
- `oracle_paraphrased`: the same truth in a second wording set that shares no content word with the question
  or options (paraphrase.py), answered by the shared reader: the column's reading ceiling. A column whose
  ceiling is below chance + READER_LIMIT_POINTS is reader-limited, and no ordering is claimed on it.
- `oracle_paraphrased_b`: the same truth in a third wording set, written apart from the second and never tuned on
  (paraphrase.WORDING_B). The reader is developed on the second set; this one says whether it learnt a wording.

Rows have the result schema with `control` true; `backend` is "control" except for the three read by the
reader, which name it. Free-form items get only those three (the others choose among options).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm.tasks import LETTERS
from ..memory.base import Context
from ..traces.schema import BEHAVIORAL_ATTRIBUTES, DIMENSION_CODES
from . import templates as tpl
from .adversary import choices_only
from .ground_truth import CorpusFacts
from .observer import observe, oracle
from .paraphrase import paraphrased_context, paraphrased_context_b
from .reader import answer, tie_credit
from .results import RESULT_SCHEMA
from .schema import Item

if TYPE_CHECKING:
    from ..llm.base import Backend

CONTROLS = ("chance", "choices_only", "observer_traces", "observer_engine", "oracle", "oracle_context",
            "oracle_paraphrased", "oracle_paraphrased_b")
# answered by the shared reader from a written context
READ_CONTROLS = ("oracle_context", "oracle_paraphrased", "oracle_paraphrased_b")
READER_LIMIT_POINTS = 25.0  # a column whose oracle_paraphrased is below chance + this is reader-limited
CONTROL_BACKEND = "control"


def _user(facts: CorpusFacts, tiers: dict[str, str], dims: Iterable[str] = DIMENSION_CODES) -> list[str]:
    return [f"- The user {tpl.BEHAVIOUR[d][tiers[d]][0]}." for d in dims]


def _persona(facts: CorpusFacts, pid: str) -> list[str]:
    persona = facts.personas[pid]
    lines = ["What this user is like:", *_user(facts, facts.tiers(pid))]
    lines += [f"- Their {tpl.attribute_label(a)}: {tpl.attribute_value(a, persona.attributes[a].value)}."
              for a in BEHAVIORAL_ATTRIBUTES if a in persona.attributes]
    lines.append(f"- They write their documents in {persona.language}.")
    return lines


def truth_context(item: Item, facts: CorpusFacts) -> str:
    """The ground truth an item asks about, as a memory with perfect knowledge would write it."""
    kind, meta, pid = item.sub_class, item.metadata, item.profile_id
    sub_track = meta.get("source_sub_track", item.sub_track)  # File Grounding asks its source's question
    if "future" in meta:  # Visual Grounding: what the second half of the session does
        return f"What the user does next in this session: {item.correct}"
    if sub_track == "behavioral_fingerprint":
        tid = item.input_trajectories[0]
        shown = facts.expressed[tid].tiers
        return "\n".join(["In this session:", *_user(facts, shown, facts.active(facts.task_of[tid]))])
    if sub_track == "trace_disentanglement":
        a, b = meta["interleave"]
        dims = facts.active(meta["task_id"])
        return "\n".join([f"{tpl.option_label(1)}, one user:", *_user(facts, facts.effective(a), dims),
                          f"{tpl.option_label(2)}, the other user:", *_user(facts, facts.effective(b), dims)])
    if sub_track == "anomaly_detection":
        answer_tid, labels = meta["answer_trajectory"], meta["labels"]
        what = "was done by someone else" if kind == "impostor" else "shows the user behaving unlike themselves"
        return "\n".join(f"- {labels[t]} {what}." if t == answer_tid else f"- {labels[t]} is typical of this user."
                         for t in item.input_trajectories)
    if sub_track == "shift_analysis":
        tid = meta["answer_trajectory"]
        shift = facts.shifts[tid]
        task = tpl.task_ref(facts.tasks[facts.task_of[tid]])
        change = tpl.shift_text(shift.dimension, shift.from_tier, shift.to_tier, 0)
        return (f"In the session on {task}, the way the user {tpl.ASPECT[shift.dimension]} changed "
                f"({tpl.direction_text(shift.dimension, shift.from_tier, shift.to_tier, 0)}). {change}")
    return "\n".join(_persona(facts, pid))


def _row(item: Item, method: str, backend: str, model: str, seed: int, **fields: Any) -> dict[str, Any]:
    row = dict.fromkeys(RESULT_SCHEMA)
    row.update(method=method, params_hash=CONTROL_BACKEND, backend=backend, model=model,
               question_id=item.question_id, seed=seed, item_seed=int(item.metadata.get("item_seed", 0)),
               profile_id=item.profile_id, control=True, sub_track=item.sub_track, channel=item.channel,
               mcq=item.is_mcq)
    row.update(fields)
    return row


def _choice(item: Item, method: str, index: int, seed: int) -> dict[str, Any]:
    correct = index == item.answer_index
    return _row(item, method, CONTROL_BACKEND, "-", seed, answer=LETTERS[index] if index >= 0 else "",
                score=float(correct), is_correct=correct)


def _observed(item: Item, judged: Any, seed: int) -> dict[str, Any]:
    """observer_traces' row: its choice, or where its evidence ties options at the top, the expected score of
    guessing among them (1 / tied if the key is one of them), as the shared reader is scored."""
    if judged.index >= 0 or not judged.scores:
        return _choice(item, "observer_traces", judged.index, seed)
    return _row(item, "observer_traces", CONTROL_BACKEND, "-", seed, answer="",
                score=tie_credit(list(judged.scores), item.answer_index), is_correct=False)


def control_rows(items: list[Item], facts: CorpusFacts, *, controls: Iterable[str] = CONTROLS,
                 backend: Backend | None = None, seed: int = 0,
                 traced: CorpusFacts | None = None) -> list[dict[str, Any]]:
    """Result rows of the chosen controls for `items` (the oracle_ contexts need the reader's `backend`,
    observer_traces the trace readings `traced` of trace_observer.trace_facts)."""
    chosen = list(controls)
    unknown = [c for c in chosen if c not in CONTROLS]
    if unknown:
        raise ValueError(f"unknown control(s) {unknown}; controls: {', '.join(CONTROLS)}")
    if set(READ_CONTROLS) & set(chosen) and backend is None:
        raise ValueError("the oracle_context and oracle_paraphrased(_b) controls are answered by the shared "
                         "reader: pass a backend")
    mcq = [i for i in items if i.is_mcq]
    rows: list[dict[str, Any]] = []
    if "chance" in chosen:
        rows += [_row(i, "chance", CONTROL_BACKEND, "-", seed, answer="", score=1.0 / len(i.choices), is_correct=False)
                 for i in mcq]
    if "choices_only" in chosen and mcq:
        picks = {p.question_id: p.index for p in choices_only(mcq)}
        rows += [_choice(i, "choices_only", picks[i.question_id], seed) for i in mcq]
    if "observer_traces" in chosen:
        if traced is None:
            raise ValueError("the observer_traces control reads the traces: pass traced=trace_facts(corpus, facts)")
        rows += [_observed(i, observe(i, traced), seed) for i in mcq]
    for name, judge in (("observer_engine", observe), ("oracle", oracle)):
        if name in chosen:
            rows += [_choice(i, name, judge(i, facts).index, seed) for i in mcq]
    writers = (("oracle_context", truth_context), ("oracle_paraphrased", paraphrased_context),
               ("oracle_paraphrased_b", paraphrased_context_b))
    for name, write in writers:
        if name not in chosen:
            continue
        for item in items:
            context = Context(write(item, facts))
            reply = answer(item, context, backend=backend)
            rows.append(_row(item, name, backend.name, backend.model, seed, answer=reply.answer,
                             score=reply.score, is_correct=reply.is_correct, likert=reply.likert,
                             confidence=reply.confidence, context_tokens=context.tokens,
                             rationale=reply.rationale or None, error=reply.error))
    return rows


def evaluate_controls(items: Iterable[Item], corpus: str | Path, *, out: str | Path,
                      controls: Iterable[str] = CONTROLS, backend: str | Backend = "offline",
                      backend_params: dict[str, Any] | None = None, seed: int = 0) -> int:
    """Append the controls' rows for `items` to out/results.jsonl (beside the methods' rows of `evaluate`),
    skipping rows already there; returns how many were written."""
    from ..llm import get_backend
    from .ground_truth import corpus_facts
    from .results import ResultsLog

    items = list(items)
    chosen = list(controls)
    reader = get_backend(backend, **(backend_params or {})) if isinstance(backend, str) else backend
    log = ResultsLog(Path(out) / "results.jsonl")
    done = {(r["method"], r["question_id"], r.get("seed")) for r in log.rows if r.get("control")}
    todo = {c: [i for i in items if (c, i.question_id, seed) not in done] for c in chosen}
    facts = corpus_facts(corpus)
    traced = None
    if todo.get("observer_traces"):
        from .trace_observer import TooFewPersonas, trace_facts

        try:
            traced = trace_facts(corpus, facts)
        except TooFewPersonas as exc:
            warnings.warn(f"{corpus}: observer_traces left out ({exc})", stacklevel=2)
            todo["observer_traces"] = []
    written = 0
    try:
        for name, pending in todo.items():
            if pending:
                for row in control_rows(pending, facts, controls=[name], backend=reader, seed=seed, traced=traced):
                    log.append(row)
                    written += 1
    finally:
        log.close()
    return written
