"""FileGramOS on a corpus: does the offline memory read each persona's tiers, spot the perturbed
sessions, and what does it cost in tokens (paper Table 3's storage and query columns)?

Every persona's memory is built once per corpus and process (`persona_memories`); the three
tables below read it. Ground truth (profiles.json, perturbations.json) is used only to score.
"""

from __future__ import annotations

import functools
from pathlib import Path

import polars as pl

from ..traces.schema import ATTRIBUTES, DIMENSION_CODES, DIMENSIONS
from ..util.progress import progress_bar
from .corpus_source import ground_truth, resolve_corpus
from .registry import artifact

PAPER_STORED_TOKENS, PAPER_QUERY_TOKENS = 109_700, 4_300  # paper §5 / Table 3: FileGramOS per profile, per query
PROBES = tuple(f"How would you describe this user's {name.replace('_', ' ')}?"
               for name, a in ATTRIBUTES.items() if not a.is_identity)  # one query per behavioural attribute


@functools.lru_cache(maxsize=2)
def persona_memories(corpus: str) -> dict:
    """profile id -> FileGramOS memory ingested (offline backend) from that persona's trajectories."""
    from ..llm import get_backend
    from ..memory import get_memory
    from ..traces.load import load_trajectories

    backend = get_backend("offline")
    trajs = load_trajectories(corpus, progress=False)
    by_user: dict[str, list] = {}
    for traj in trajs:
        by_user.setdefault(traj.profile_id, []).append(traj)
    return {pid: get_memory("filegramos").ingest(items, backend=backend)
            for pid, items in progress_bar(sorted(by_user.items()), desc="FileGramOS ingest", unit="persona")}


def _truth(corpus: Path) -> tuple[dict, set[str]]:
    personas, shifts = ground_truth(corpus)
    return personas, {p["trajectory_id"] for p in shifts}


@artifact("filegramos_recovery", notebook="04_memory_channels", corpus=True,
          title="FileGramOS (offline): the procedural channel's L/M/R reading against the personas' true tiers",
          note="One memory per persona from all its sessions (perturbed ones included, as a memory would get "
               "them). The readings come from classifiers fit on 48 synthetic calibration personas "
               "(`filegram calibrate`), never on these personas. `confusions`: true->read for the misses.")
def filegramos_recovery(corpus: str | Path | None = None) -> pl.DataFrame:
    corpus = resolve_corpus(corpus)
    personas, _ = _truth(corpus)
    memories = persona_memories(str(corpus))
    rows = []
    for code in DIMENSION_CODES:
        pairs = [(personas[pid].tiers[code].value, next(r for r in m.readings_ if r.dimension == code))
                 for pid, m in memories.items()]
        misses = sorted(f"{t}->{r.tier}" for t, r in pairs if t != r.tier)
        rows.append({"dimension": f"{code} {DIMENSIONS[code].name}", "personas": len(pairs),
                     "recovered": sum(t == r.tier for t, r in pairs),
                     "accuracy": round(sum(t == r.tier for t, r in pairs) / len(pairs), 3),
                     "mean_confidence": round(sum(r.confidence for _, r in pairs) / len(pairs), 3),
                     "confusions": ", ".join(misses)})
    total = sum(r["recovered"] for r in rows), sum(r["personas"] for r in rows)
    rows.append({"dimension": "all", "personas": total[1], "recovered": total[0],
                 "accuracy": round(total[0] / total[1], 3),
                 "mean_confidence": round(sum(r["mean_confidence"] for r in rows) / len(rows), 3), "confusions": ""})
    return pl.DataFrame(rows)


@artifact("filegramos_drift", notebook="03_fingerprint_explorer", corpus=True,
          title="FileGramOS (offline): do perturbed sessions deviate more than normal ones?",
          note="Per persona, each session's distance to the centroid of its z-scored fingerprints (paper Eq. 1), "
               "and the same after removing the mean shift of the persona's other sessions of its task type. "
               "AUC = P(a perturbed session scores above a normal one), ties half; 0.5 is chance. Flags at "
               "tau = 1.5; the judge only sees flagged sessions.")
def filegramos_drift(corpus: str | Path | None = None) -> pl.DataFrame:
    from ..engine.realism import auc

    corpus = resolve_corpus(corpus)
    _, shifted = _truth(corpus)
    frame = pl.concat([m.drift_ for m in persona_memories(str(corpus)).values()])
    frame = frame.with_columns(pl.col("trajectory_id").is_in(sorted(shifted)).alias("perturbed"))
    rows = []
    for score in ("deviation", "task_adjusted_deviation"):
        pos, neg = frame.filter(pl.col("perturbed"))[score], frame.filter(~pl.col("perturbed"))[score]
        rows.append({"score": score, "perturbed": pos.len(), "normal": neg.len(), "auc": round(auc(pos, neg), 3)})
    flags = frame.group_by("perturbed").agg(pl.col("flagged").mean().alias("flag_rate"),
                                            (pl.col("judge") == "outlier").sum().alias("judged_outlier"))
    rates = {r["perturbed"]: r for r in flags.iter_rows(named=True)}
    out = pl.DataFrame(rows)
    return out.with_columns(
        pl.lit(round(rates.get(True, {}).get("flag_rate", 0.0), 3)).alias("flagged_perturbed"),
        pl.lit(round(rates.get(False, {}).get("flag_rate", 0.0), 3)).alias("flagged_normal"),
        pl.lit(rates.get(True, {}).get("judged_outlier", 0)).alias("outlier_perturbed"),
        pl.lit(rates.get(False, {}).get("judged_outlier", 0)).alias("outlier_normal"),
    )


@artifact("filegramos_tokens", paper="Table 3", notebook="04_memory_channels", corpus=True,
          title="FileGramOS token accounting: stored memory per persona and context per query (estimated tokens)",
          note="Tokens are estimated without a tokenizer (`filegram_kit.util.tokens.estimate_tokens`: 4 characters per "
               "token, 1 per Chinese character). Stored = everything the memory keeps, rendered as text; per query "
               "= the context for one probe question per behavioural attribute (16), default knobs. The paper's "
               "numbers (Gemini tokenizer, LLM-written memory) are shown beside ours.")
def filegramos_tokens(corpus: str | Path | None = None) -> pl.DataFrame:
    from ..llm import get_backend

    backend = get_backend("offline")
    memories = persona_memories(str(resolve_corpus(corpus)))
    stored = pl.Series([m.memory_tokens() for m in memories.values()])
    per_query = pl.Series([m.retrieve(q, backend=backend).tokens for m in memories.values() for q in PROBES])
    return pl.DataFrame([
        {"measure": "stored memory tokens per persona", "ours_mean": round(float(stored.mean()), 1),
         "ours_min": int(stored.min()), "ours_max": int(stored.max()), "paper": PAPER_STORED_TOKENS},
        {"measure": "context tokens per query", "ours_mean": round(float(per_query.mean()), 1),
         "ours_min": int(per_query.min()), "ours_max": int(per_query.max()), "paper": PAPER_QUERY_TOKENS},
    ])
