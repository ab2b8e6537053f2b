"""Does an item set measure memory? Three checks per sub-task, run by `filegram bench build` and `bench audit`.

1. **Choices only** (adversary.py): a model that never sees a trace, trained on the options of other
   personas' items, answers each item. It must not beat chance by more than max(5 points, 2.5
   standard errors of chance accuracy over the sub-task's items).
2. **Position and order**: the best single rule "always pick option k" (the key's letter or, where
   options are sessions, the key session's place in the input order) must stay under the same limit,
   and so must "pick the session whose task was most often the key for other personas" (a reader sees
   each session's task; trajectory ids, which name the persona, are hidden from it by inputs.py).
3. **Observer agreement** (observer.py, needs the corpus): the ideal observer of the traces picks the
   key in at least 97% of the items; below that the keys disagree with what the evidence shows.

A sub-task fails if any check fails; `AuditReport.failed` names them, and the CLI exits non-zero.
Sub-class rows are reported too (to find a leak), but only sub-task rows gate; a sub-class under MIN_CLASS_ITEMS
items is too small to audit alone (its limits are wide and its rates noisy), so it is audited pooled with its
sub-task and flagged `small` in the report. Item sets of several
seeds are audited seed by seed (`audit_per_seed`): they share items, so pooling would overstate n.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import polars as pl

from .adversary import choices_only
from .ground_truth import CorpusFacts
from .observer import observe
from .schema import Item

MIN_GAP = 5.0  # points above chance a check may reach by luck
SE_FACTOR = 2.5  # ... or this many standard errors of chance accuracy, whichever is larger
MIN_OBSERVER = 97.0  # % of items on which the ideal observer must pick the key
MIN_CLASS_ITEMS = 30  # a sub-class with fewer items cannot be audited on its own: it is pooled and flagged
ALL = "(all)"


def limit(chance: float, n: int) -> float:
    """The highest accuracy (in %) a check may reach on n items whose chance accuracy is `chance` (in %)."""
    p = chance / 100.0
    se = 100.0 * float(np.sqrt(p * (1 - p) / max(n, 1)))
    return chance + max(MIN_GAP, SE_FACTOR * se)


def _best_rule(indices: list[int | None]) -> float:
    """% of items a constant rule "pick the k-th" answers right, for the best k (None: the rule does not apply)."""
    known = [i for i in indices if i is not None]
    return 100.0 * Counter(known).most_common(1)[0][1] / len(indices) if known else float("nan")


def _option_tasks(item: Item, facts: CorpusFacts | None) -> list[str] | None:
    """The task of each option's session (what a reader sees of it besides its label); None: not sessions."""
    opts = item.metadata.get("option_facts") or []
    ids = [o.get("trajectory") for o in opts]
    if facts is None or not ids or any(t is None for t in ids):
        return None
    return [facts.task_of.get(t, "") for t in ids]


def task_prior(items: list[Item], facts: CorpusFacts | None) -> dict[str, bool]:
    """Items whose options are sessions, answered by "the session whose task was most often the key", learnt
    from other personas' items (leave one persona out): a reader sees each session's task, so a generator
    that picks deviating sessions from some tasks more than others leaks through it."""
    tasks = {i.question_id: _option_tasks(i, facts) for i in items}
    usable = [i for i in items if tasks[i.question_id] is not None and i.answer_index is not None]
    out = {}
    for item in usable:
        keyed, shown = Counter(), Counter()
        for other in usable:
            if other.profile_id != item.profile_id:
                names = tasks[other.question_id]
                keyed[names[other.answer_index]] += 1
                shown.update(names)
        rate = [(keyed[t] + 0.5) / (shown[t] + 1.0) for t in tasks[item.question_id]]
        out[item.question_id] = int(np.argmax(rate)) == item.answer_index
    return out


@dataclass(frozen=True)
class AuditReport:
    table: pl.DataFrame  # one row per sub-task (sub_class "(all)") and per sub-class [and item seed]

    def _where(self, row: dict) -> str:
        return f"{row['sub_track']} (item seed {row['item_seed']})" if "item_seed" in row else row["sub_track"]

    @property
    def failed(self) -> list[str]:
        """Sub-tasks that fail a check (once each, whichever item seeds they fail in)."""
        rows = self.table.filter((pl.col("sub_class") == ALL) & ~pl.col("passed"))
        return list(dict.fromkeys(rows["sub_track"].to_list()))

    @property
    def passed(self) -> bool:
        return not self.failed

    def flagged_classes(self) -> list[tuple[str, str, str]]:
        """(sub_track, sub_class, reasons) of sub-class rows that fail a check on their own or are too small to
        audit alone (they do not gate: small sub-classes are noisy, but a reader of their scores should know)."""
        rows = self.table.filter((pl.col("sub_class") != ALL) & (~pl.col("passed") | pl.col("small")))
        return [(self._where(r), r["sub_class"], "; ".join(
            x for x in (r["reasons"], f"only {r['items']} items (< {MIN_CLASS_ITEMS}): audited pooled with its "
                        "sub-task" if r["small"] else "") if x)) for r in rows.iter_rows(named=True)]

    def reasons(self) -> dict[str, str]:
        """Why each failing sub-task fails ("<sub_track> (item seed s)" when seeds are audited apart)."""
        rows = self.table.filter((pl.col("sub_class") == ALL) & ~pl.col("passed"))
        return {self._where(r): r["reasons"] for r in rows.iter_rows(named=True)}


def _row(sub_track: str, sub_class: str, items: list[Item], hits: dict[str, bool],
         observed: dict[str, bool] | None, prior: dict[str, bool]) -> dict:
    n = len(items)
    chance = 100.0 * float(np.mean([1.0 / len(i.choices) for i in items]))
    top = limit(chance, n)
    adversary = 100.0 * float(np.mean([hits[i.question_id] for i in items]))
    position = _best_rule([i.answer_index for i in items])
    by_task = [prior[i.question_id] for i in items if i.question_id in prior]
    order = 100.0 * float(np.mean(by_task)) if by_task else float("nan")
    scored = [observed[i.question_id] for i in items if observed is not None and i.question_id in observed]
    agreement = 100.0 * float(np.mean(scored)) if scored else float("nan")
    reasons = []
    if adversary > top:
        reasons.append(f"choices-only {adversary:.1f} > {top:.1f}")
    if position > top:
        reasons.append(f"key position {position:.1f} > {top:.1f}")
    if not np.isnan(order) and order > top:
        reasons.append(f"task prior {order:.1f} > {top:.1f}")
    if scored and agreement < MIN_OBSERVER:
        reasons.append(f"observer agrees {agreement:.1f} < {MIN_OBSERVER:.0f}")
    return {"sub_track": sub_track, "sub_class": sub_class, "items": n, "chance": round(chance, 1),
            "limit": round(top, 1), "choices_only": round(adversary, 1), "key_position": round(position, 1),
            "task_prior": None if np.isnan(order) else round(order, 1),
            "observer": None if np.isnan(agreement) else round(agreement, 1),
            "small": sub_class != ALL and n < MIN_CLASS_ITEMS, "passed": not reasons, "reasons": "; ".join(reasons)}


def audit_items(items: Iterable[Item], facts: CorpusFacts | None = None) -> AuditReport:
    """The three checks on every multiple-choice sub-task of `items` (observer agreement only with `facts`)."""
    mcq = [i for i in items if i.is_mcq]
    if not mcq:
        raise ValueError("audit_items: no multiple-choice items to audit")
    hits = {p.question_id: p.is_correct for p in choices_only(mcq)}
    observed = None
    if facts is not None:
        observed = {i.question_id: observe(i, facts).index == i.answer_index for i in mcq
                    if i.metadata.get("option_facts")}
    prior = task_prior(mcq, facts)
    rows = []
    for sub_track in dict.fromkeys(i.sub_track for i in mcq):
        members = [i for i in mcq if i.sub_track == sub_track]
        rows.append(_row(sub_track, ALL, members, hits, observed, prior))
        classes = sorted({i.sub_class for i in members})
        if len(classes) > 1:
            rows += [_row(sub_track, c, [i for i in members if i.sub_class == c], hits, observed, prior)
                     for c in classes]
    return AuditReport(pl.DataFrame(rows))


def audit_per_seed(items: Iterable[Item], facts: CorpusFacts | None = None) -> AuditReport:
    """`audit_items` on each item seed's set apart (metadata "item_seed"), one table with an item_seed column.

    Sets of several seeds share items (the same perturbed sessions, whole-history inputs), so pooling them
    would count one item several times and shrink the standard errors the limits allow; each seed's set is
    the benchmark a run of that seed answers. One seed: exactly `audit_items`."""
    by_seed: dict[int, list[Item]] = {}
    for item in items:
        by_seed.setdefault(int((item.metadata or {}).get("item_seed", 0)), []).append(item)
    if len(by_seed) <= 1:
        return audit_items([i for group in by_seed.values() for i in group], facts)
    tables = [audit_items(group, facts).table.select(pl.lit(seed).alias("item_seed"), pl.all())
              for seed, group in sorted(by_seed.items())]
    return AuditReport(pl.concat(tables))
