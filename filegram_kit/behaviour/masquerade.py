"""Who typed this block? Was it the user? User identification and masquerade detection on real command
streams, scored by the habit model (`habit.py`) and by the 17-D fingerprint on the same blocks.

    blocks = stream_blocks({"user1": trajs1, ...})       # each user's blocks of commands, in order
    pu_table(blocks, train=1500, test=500)                # one row per detector

Protocols (each user's stream cut into blocks of equal length, in order; a short last block is left out):
- identification: each user's first `train` commands train; each later block is attributed to the user
  whose model fits it best (habit: highest likelihood; fingerprint: nearest centroid of the training
  blocks' z-scored features). Accuracy; chance is 1 / users. Beside it: a 95% CI drawing users (not
  blocks) with replacement, and the shuffled-label control (the training blocks' users permuted: it
  should fall to chance; if it does not, something other than habits tells users apart).
- masquerade: per target user, its first `train` commands train; every later block of its own is normal;
  the blocks of every other user in commands [train, train + test) are spliced in as masquerades (the
  setting of the public Markov-chain implementation on this data: train 1,500, test 500). A detector
  gives each block an anomaly score; reported: AUC per target (mean over targets, 95% CI drawing
  targets with replacement) and, pooling every
  target's blocks, the hit rate at 1% and 5% false alarms (thresholds at the 99th / 95th percentile of the
  normal blocks' scores).
Detectors:
- command multinomial (naive Bayes): a multinomial over command names only (`habit.commands`) with additive
  smoothing (`COMMAND_ALPHA`), the masquerade literature's naive Bayes, beside the action tokens' model.
- habit (Markov / multinomial), one-class: the block's mean log-likelihood per action under the target's
  model alone (only the target's data, as a deployed detector would have). Score: its negative.
- habit, against others: the log-likelihood ratio of the target's model to everyone's training data
  (other users' habits are known: an easier, two-class setting). Score: its negative.
- fingerprint, one-class: the 17 features z-scored by the target's training blocks (sd floored at
  `SD_FLOOR` of the pooled sd), score = the distance to its centroid (paper Eq. 1's deviation).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from ..traces.schema import Trajectory
from .fingerprint import FEATURES, fingerprints
from .habit import COMMAND_ALPHA, Counts, HabitModel, commands, tokens

SD_FLOOR = 0.1  # a feature a user never varies still gets this share of the pooled sd (no division by 0)
FALSE_ALARMS = (0.01, 0.05)
N_BOOT = 2000  # bootstrap replicates of the user-clustered CIs
TABLE_SCHEMA = {"detector": pl.String, "setting": pl.String, "identification": pl.Float64,
                "identification_lo": pl.Float64, "identification_hi": pl.Float64,
                "shuffled_identification": pl.Float64, "masquerade_auc": pl.Float64, "masquerade_auc_lo": pl.Float64,
                "masquerade_auc_hi": pl.Float64, "hit_at_1pct": pl.Float64, "hit_at_5pct": pl.Float64,
                "users": pl.Int64, "normal_blocks": pl.Int64, "masquerade_blocks": pl.Int64}


@dataclass(frozen=True)
class Block:
    user: str
    start: int  # index of its first command in the user's stream
    size: int  # commands in it
    tokens: list[str]
    features: np.ndarray  # the 17 fingerprint features
    commands: tuple[str, ...] = ()  # the command names (`habit.commands`), START first

    def sequence(self, detector: str) -> list[str]:
        """What a habit-type detector reads: the command names ("command") or the action tokens ("habit")."""
        return list(self.commands) if detector == "command" else self.tokens


def stream_blocks(trajectories: Mapping[str, Sequence[Trajectory]]) -> dict[str, list[Block]]:
    """Each user's trajectories (blocks of one command stream, in order; `record.commands`) as Blocks; blocks
    shorter than the user's first are left out (a stream's short last block)."""
    out = {}
    for user, trajs in trajectories.items():
        trajs = list(trajs)
        if not trajs:
            continue
        size = _commands(trajs[0])
        kept = [t for t in trajs if _commands(t) == size]
        fp = fingerprints(kept).select("trajectory_id", *FEATURES)
        rows = dict(zip(fp["trajectory_id"], fp.select(FEATURES).to_numpy(), strict=True))
        out[user] = [Block(user, k * size, size, tokens(t), rows[t.id], tuple(commands(t)))
                     for k, t in enumerate(kept)]
    return out


def _commands(traj: Trajectory) -> int:
    return sum(1 for e in traj.events if e.event_type == "tool_call")


def split_at(blocks: Mapping[str, list[Block]], train: int) -> tuple[dict[str, list[Block]], dict[str, list[Block]]]:
    """Each user's blocks within its first `train` commands (training) and those from command `train` on."""
    fit = {u: [b for b in bs if b.start + b.size <= train] for u, bs in blocks.items()}
    later = {u: [b for b in bs if b.start >= train] for u, bs in blocks.items()}
    empty = sorted(u for u in blocks if not fit[u] or not later[u])
    if empty:
        raise ValueError(f"users {', '.join(empty)} have no block before or after command {train}: lower `train`")
    return fit, later


def habit_model(detector: str, order: int) -> HabitModel:
    """An empty model of a habit-type detector: "habit" (Witten-Bell, `order`) or "command" (naive Bayes)."""
    return HabitModel(0, COMMAND_ALPHA) if detector == "command" else HabitModel(order)


def _habit(fit: Mapping[str, list[Block]], order: int, detector: str = "habit") -> HabitModel:
    model = habit_model(detector, order)
    for user, bs in fit.items():
        for b in bs:
            model.update(user, b.sequence(detector))
    return model


def _fingerprint_fit(fit: Mapping[str, list[Block]]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    pooled = np.vstack([b.features for bs in fit.values() for b in bs])
    floor = SD_FLOOR * np.maximum(pooled.std(axis=0, ddof=1), 1e-9)
    return {u: (np.mean([b.features for b in bs], axis=0),
                np.maximum(np.std([b.features for b in bs], axis=0, ddof=1) if len(bs) > 1 else 0.0, floor))
            for u, bs in fit.items()}


def identification(blocks: Mapping[str, list[Block]], *, train: int, detector: str, order: int = 1) -> float:
    """Share of the later blocks attributed to their own user (`detector`: "habit" | "command" | "fingerprint")."""
    return float(np.mean([hit for _, hit in identified(blocks, train=train, detector=detector, order=order)]))


def _shuffled(fit: Mapping[str, list[Block]], seed: int) -> dict[str, list[Block]]:
    """The training blocks with their users' names permuted among them (each user keeps its block count)."""
    users = [u for u, bs in fit.items() for _ in bs]
    np.random.default_rng(seed).shuffle(users)
    out: dict[str, list[Block]] = {u: [] for u in fit}
    for user, b in zip(users, [b for bs in fit.values() for b in bs], strict=True):
        out[user].append(b)
    return out


def identified(blocks: Mapping[str, list[Block]], *, train: int, detector: str, order: int = 1,
               shuffle: int | None = None) -> list[tuple[str, bool]]:
    """(user, attributed to that user?) for every later block. `shuffle` (a seed): the training blocks'
    users are permuted first, a control whose accuracy should fall to chance (else the protocol leaks)."""
    fit, later = split_at(blocks, train)
    if shuffle is not None:
        fit = _shuffled(fit, shuffle)
    tests = [b for bs in later.values() for b in bs]
    if detector in ("habit", "command"):
        model = _habit(fit, order, detector)
        guesses = [model.identify(b.sequence(detector)) for b in tests]
    elif detector == "fingerprint":
        users = sorted(fit)
        pooled = np.vstack([b.features for u in users for b in fit[u]])
        mean, sd = pooled.mean(axis=0), np.maximum(pooled.std(axis=0, ddof=1), 1e-9)
        centroids = np.array([((np.mean([b.features for b in fit[u]], axis=0)) - mean) / sd for u in users])
        guesses = [users[int(np.argmin(np.linalg.norm(centroids - (b.features - mean) / sd, axis=1)))]
                   for b in tests]
    else:
        raise ValueError(f"detector must be 'habit', 'command' or 'fingerprint', got {detector!r}")
    return [(b.user, g == b.user) for g, b in zip(guesses, tests, strict=True)]


def user_bootstrap(hits: Mapping[str, float], counts: Mapping[str, float], *, n_boot: int = N_BOOT, seed: int = 0,
                   level: float = 0.95) -> tuple[float, float]:
    """Percentile CI of sum(hits) / sum(counts) when the users, not the blocks, are drawn with replacement
    (one user's blocks share that user's habits: their outcomes are not independent)."""
    users = sorted(counts)
    h, n = np.array([hits[u] for u in users], float), np.array([counts[u] for u in users], float)
    weights = np.random.default_rng(seed).multinomial(len(users), np.full(len(users), 1 / len(users)), size=n_boot)
    with np.errstate(invalid="ignore"):
        reps = (weights @ h) / (weights @ n)
    lo, hi = np.nanpercentile(reps, [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi)


def _auc(normal: np.ndarray, masquerade: np.ndarray) -> float:
    """P(a masquerade block scores above a normal one), ties counted half."""
    greater = (masquerade[:, None] > normal[None, :]).sum() + 0.5 * (masquerade[:, None] == normal[None, :]).sum()
    return float(greater / (len(normal) * len(masquerade)))


def clustered_auc_ci(high: Sequence[float], high_users: Sequence[str], low: Sequence[float], low_users: Sequence[str],
                     *, n_boot: int = N_BOOT, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile CI of the pooled AUC P(high > low) when users are drawn with replacement: a replicate
    weighs every (high, low) pair by how often both their users were drawn (pairs collapse to user x user
    sums first, so a replicate is two small matrix products)."""
    users = sorted(set(high_users) | set(low_users))
    at = {u: k for k, u in enumerate(users)}
    a, b = np.asarray(high, float), np.asarray(low, float)
    wins = (a[:, None] > b[None, :]) + 0.5 * (a[:, None] == b[None, :])
    ia, ib = np.array([at[u] for u in high_users]), np.array([at[u] for u in low_users])
    won, pairs = np.zeros((len(users), len(users))), np.zeros((len(users), len(users)))
    np.add.at(won, (ia[:, None], ib[None, :]), wins)
    np.add.at(pairs, (ia[:, None], ib[None, :]), 1.0)
    w = np.random.default_rng(seed).multinomial(len(users), np.full(len(users), 1 / len(users)), size=n_boot)
    with np.errstate(invalid="ignore"):
        reps = np.einsum("ri,ij,rj->r", w, won, w) / np.einsum("ri,ij,rj->r", w, pairs, w)
    lo, hi = np.nanpercentile(reps, [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi)


def masquerade_scores(blocks: Mapping[str, list[Block]], *, train: int, test: int, detector: str,
                      setting: str = "one-class", order: int = 1) -> pl.DataFrame:
    """Per (target, block): the anomaly score and whether the block is a masquerade (module docstring)."""
    if setting not in ("one-class", "against others") or (detector == "fingerprint" and setting != "one-class"):
        raise ValueError(f"no {setting!r} setting for detector {detector!r}")
    fit, later = split_at(blocks, train)
    model = _habit(fit, order, detector) if detector in ("habit", "command") else None
    centres = _fingerprint_fit(fit) if detector == "fingerprint" else None
    intruders = {u: [b for b in bs if b.start + b.size <= train + test]
                 for u, bs in later.items()}

    def score(target: str, b: Block) -> float:
        if centres is not None:
            mean, sd = centres[target]
            return float(np.linalg.norm((b.features - mean) / sd))
        if setting == "one-class":
            return -model.log_likelihood(model.users[target], b.sequence(detector))
        return -model.llr(target, b.sequence(detector))

    rows = []
    for target in sorted(later):
        rows += [(target, b.user, b.start, False, score(target, b)) for b in later[target]]
        rows += [(target, b.user, b.start, True, score(target, b))
                 for other in sorted(intruders) if other != target for b in intruders[other]]
    return pl.DataFrame(rows, schema={"target": pl.String, "typed_by": pl.String, "start": pl.Int64,
                                      "masquerade": pl.Boolean, "score": pl.Float64}, orient="row")


def detection_summary(scores: pl.DataFrame) -> dict[str, float | int]:
    """Mean AUC over targets (with its target-clustered bootstrap CI); pooled hit rates at the false-alarm
    rates of `FALSE_ALARMS`."""
    aucs = {}
    for (target,), group in scores.group_by("target", maintain_order=True):
        normal = group.filter(~pl.col("masquerade"))["score"].to_numpy()
        masq = group.filter(pl.col("masquerade"))["score"].to_numpy()
        if len(normal) and len(masq):
            aucs[target] = _auc(normal, masq)
    normal = scores.filter(~pl.col("masquerade"))["score"].to_numpy()
    masq = scores.filter(pl.col("masquerade"))["score"].to_numpy()
    lo, hi = user_bootstrap(aucs, dict.fromkeys(aucs, 1.0)) if aucs else (float("nan"), float("nan"))
    out: dict[str, float | int] = {"masquerade_auc": float(np.mean(list(aucs.values()))) if aucs else float("nan"),
                                   "masquerade_auc_lo": lo, "masquerade_auc_hi": hi}
    for rate in FALSE_ALARMS:
        threshold = np.quantile(normal, 1 - rate, method="higher")  # at most `rate` of normal blocks above it
        out[f"hit_at_{round(rate * 100)}pct"] = float(np.mean(masq > threshold))
    out["normal_blocks"], out["masquerade_blocks"] = len(normal), len(masq)
    return out


DETECTORS = (("habit Markov", "habit", 1), ("habit multinomial", "habit", 0),
             ("command multinomial (naive Bayes)", "command", 0), ("17-D fingerprint", "fingerprint", 1))


def pu_table(blocks: Mapping[str, list[Block]], *, train: int = 1500, test: int = 500) -> pl.DataFrame:
    """One row per detector and setting: identification accuracy, masquerade AUC, hit rates (module doc)."""
    rows = []
    for name, detector, order in DETECTORS:
        settings = ("one-class",) if detector == "fingerprint" else ("one-class", "against others")
        outcomes = identified(blocks, train=train, detector=detector, order=order)
        hits, counts = defaultdict(float), defaultdict(float)
        for user, hit in outcomes:
            hits[user] += hit
            counts[user] += 1
        lo, hi = user_bootstrap(hits, counts)
        control = identified(blocks, train=train, detector=detector, order=order, shuffle=0)
        accuracy = {"identification": sum(hits.values()) / len(outcomes), "identification_lo": lo,
                    "identification_hi": hi, "shuffled_identification": float(np.mean([h for _, h in control]))}
        for setting in settings:
            summary = detection_summary(masquerade_scores(blocks, train=train, test=test, detector=detector,
                                                          setting=setting, order=order))
            rows.append({"detector": name, "setting": setting, **accuracy, **summary, "users": len(blocks)})
    return pl.DataFrame(rows, schema=TABLE_SCHEMA).select(list(TABLE_SCHEMA))


def impostor_scores(trajs: Sequence[Trajectory], *, detector: str, order: int = 1) -> pl.DataFrame:
    """The masquerade protocol on sessions (the synthetic corpus): per user, its own sessions are normal, each
    scored against the user's *other* sessions; every other user's sessions are impostors, scored against all
    of the user's sessions. Same scores as `masquerade_scores` one-class (habit or fingerprint)."""
    if detector not in ("habit", "fingerprint"):
        raise ValueError(f"detector must be 'habit' or 'fingerprint', got {detector!r}")
    by_user: dict[str, list[Trajectory]] = {}
    for t in trajs:
        by_user.setdefault(t.profile_id or "", []).append(t)
    users = sorted(u for u, ts in by_user.items() if len(ts) > 1)
    if detector == "habit":
        model = HabitModel(order)
        seqs = {t.id: tokens(t) for t in trajs}
        for t in trajs:
            model.update(t.profile_id or "", seqs[t.id])

        def score(user: str, t: Trajectory, own: bool) -> float:
            minus = Counts.of(seqs[t.id]) if own else None
            return -model.log_likelihood(model.users[user], seqs[t.id], minus)
    else:
        fp = fingerprints(list(trajs))
        rows = dict(zip(fp["trajectory_id"], fp.select(FEATURES).to_numpy(), strict=True))
        floor = SD_FLOOR * np.maximum(fp.select(FEATURES).to_numpy().std(axis=0, ddof=1), 1e-9)

        def score(user: str, t: Trajectory, own: bool) -> float:
            ref = np.array([rows[o.id] for o in by_user[user] if not (own and o.id == t.id)])
            sd = np.maximum(ref.std(axis=0, ddof=1) if len(ref) > 1 else 0.0, floor)
            return float(np.linalg.norm((rows[t.id] - ref.mean(axis=0)) / sd))

    out = [(u, t.profile_id, t.id, t.profile_id != u, score(u, t, t.profile_id == u))
           for u in users for t in trajs if t.profile_id == u or t.profile_id in users]
    return pl.DataFrame(out, schema={"target": pl.String, "typed_by": pl.String, "trajectory_id": pl.String,
                                     "masquerade": pl.Boolean, "score": pl.Float64}, orient="row")
