"""A per-user habit model: which actions a user takes, with which tool or command, on which file type, in
which order. The 17-D fingerprint keeps only counts of file actions; on a command history that is most of
what is lost (who runs `make` after `vi`, who lists before reading), and this model keeps it.

    tokens(traj)                          -> ["<s>", "file_read|vi|-", "other|make|-", ...]
    model = HabitModel(order=1); model.update("alice", tokens_of_a_session) ...   (online: add as they come)
    model.llr("alice", session_tokens)    -> mean log-likelihood ratio per action, alice against everyone
    habit_scores(trajs)                    -> per session: how likely under the user's *other* sessions

An action token is `kind|tool|file type`: kind is the behavioural event type (flow events, which the
engine derives from the actions, are left out) or "other" for a tool call with no file action; tool is
the tool call that follows the action (the engine writes an action and then its tool call; importers do
the same), "-" when there is none (a watched folder); file type is the event's `file_type`, lower-cased,
without a leading dot, "-" when there is none.

The model is a Markov chain of `order` 0 (a multinomial: naive Bayes over actions) or 1 (each action
given the previous one), smoothed by Witten-Bell interpolation down to a uniform distribution over the
vocabulary (every token any user has shown, plus one unseen). Witten-Bell needs no tuned constant: a
history followed by many different actions trusts its counts less. Counts are kept per user and for
everyone, so a session is scored against its user's other sessions by subtracting its own counts (no
refit): `llr(user, tokens, exclude=tokens)`.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import polars as pl

from ..traces.schema import EVENT_CATEGORY, Trajectory

START = "<s>"
OTHER = "other"
ACTION_CATEGORIES = ("read", "write", "organize")  # flow events are derived from these, not taken
HABIT_SCHEMA = {"trajectory_id": pl.String, "profile_id": pl.String, "actions": pl.Int64, "habit_ll": pl.Float64,
                "habit_llr": pl.Float64}


def _file_type(value: object) -> str:
    text = str(value or "").strip().lower().lstrip(".")
    return text or "-"


def tokens(traj: Trajectory) -> list[str]:
    """The action tokens of a trajectory's raw events (before `clean()`, which drops the tool calls), START
    first."""
    out = [START]
    pending = None  # an action waiting for the tool call that made it
    for event in traj.events:
        if EVENT_CATEGORY.get(event.event_type) in ACTION_CATEGORIES:
            if pending is not None:
                out.append(f"{pending.event_type}|-|{_file_type(pending.get('file_type'))}")
            pending = event
        elif event.event_type == "tool_call":
            tool = str(event.get("tool_name") or "-").replace("|", "/")
            if pending is None:
                out.append(f"{OTHER}|{tool}|-")
            else:
                out.append(f"{pending.event_type}|{tool}|{_file_type(pending.get('file_type'))}")
                pending = None
    if pending is not None:
        out.append(f"{pending.event_type}|-|{_file_type(pending.get('file_type'))}")
    return out


def commands(traj: Trajectory) -> list[str]:
    """The command (tool) names of a trajectory's tool calls, in order, START first: what a command-level model
    (a multinomial over command names, naive Bayes in the masquerade literature) reads."""
    return [START, *(str(e.get("tool_name") or "-") for e in traj.events if e.event_type == "tool_call")]


def started(traj: Trajectory) -> tuple[float, str]:
    """A session's place in its user's history: its first event's time (ties: the id)."""
    return (min((e.timestamp for e in traj.events), default=float("inf")), traj.id)


@dataclass
class Counts:
    """Token and transition counts of some sessions."""

    unigrams: Counter[str] = field(default_factory=Counter)
    transitions: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    followers: Counter[str] = field(default_factory=Counter)  # history -> transitions out of it

    @classmethod
    def of(cls, sequence: Sequence[str]) -> Counts:
        counts = cls()
        counts.add(sequence)
        return counts

    def add(self, sequence: Sequence[str]) -> None:
        """A session's tokens (START first: it is a history, never a predicted token)."""
        self.unigrams.update(t for t in sequence if t != START)
        for prev, token in zip(sequence, sequence[1:], strict=False):
            self.transitions[prev][token] += 1
            self.followers[prev] += 1

    @property
    def total(self) -> int:
        return sum(self.unigrams.values())


class _View:
    """`Counts` minus an excluded session's counts (what the user's *other* sessions give), read lazily."""

    def __init__(self, counts: Counts, minus: Counts | None):
        self.c, self.m = counts, minus or Counts()
        self.total = counts.total - self.m.total
        self.types = len(counts.unigrams) - sum(1 for t, n in self.m.unigrams.items() if counts.unigrams[t] == n)

    def unigram(self, token: str) -> int:
        return self.c.unigrams.get(token, 0) - self.m.unigrams.get(token, 0)

    def history(self, prev: str) -> tuple[int, int]:
        """(transitions out of `prev`, distinct tokens after it)."""
        mine = self.c.transitions.get(prev)
        if not mine:
            return 0, 0
        gone = self.m.transitions.get(prev, {})
        distinct = len(mine) - sum(1 for t, n in gone.items() if mine.get(t) == n)
        return self.c.followers[prev] - self.m.followers.get(prev, 0), distinct

    def transition(self, prev: str, token: str) -> int:
        mine = self.c.transitions.get(prev)
        return 0 if not mine else mine.get(token, 0) - self.m.transitions.get(prev, {}).get(token, 0)


class HabitModel:
    """Witten-Bell smoothed Markov chains of action tokens, one per user and one for everyone (module doc).
    `alpha` (order 0 only): additive smoothing instead, p = (count + alpha) / (total + alpha * vocabulary), the
    naive Bayes of the masquerade literature (Maxion and Townsend use alpha = 0.01)."""

    def __init__(self, order: int = 1, alpha: float | None = None):
        if order not in (0, 1):
            raise ValueError(f"order must be 0 (multinomial) or 1 (Markov), got {order}")
        if alpha is not None and (order != 0 or alpha <= 0):
            raise ValueError(f"alpha (additive smoothing) needs order 0 and alpha > 0, got order {order}, "
                             f"alpha {alpha}")
        self.order, self.alpha = order, alpha
        self.users: dict[str, Counts] = {}
        self.everyone = Counts()

    def update(self, user: str, sequence: Sequence[str]) -> None:
        """Add a session of `user` (online: the model adapts as sessions arrive)."""
        self.users.setdefault(user, Counts()).add(sequence)
        self.everyone.add(sequence)

    @property
    def vocabulary(self) -> int:
        return len(self.everyone.unigrams) + 1  # + one token never seen

    def log_likelihood(self, counts: Counts | None, sequence: Sequence[str], exclude: Counts | None = None) -> float:
        """Mean log-probability per predicted token of `sequence` under `counts` minus `exclude`."""
        if exclude is None and counts is not None and self.alpha is None:
            return self._log_likelihood(counts, sequence)
        view = _View(counts or Counts(), exclude)
        uniform = 1.0 / self.vocabulary
        total, n = 0.0, 0
        for prev, token in zip(sequence, sequence[1:], strict=False):
            if self.alpha is not None:
                total += math.log((view.unigram(token) + self.alpha) / (view.total + self.alpha * self.vocabulary))
                n += 1
                continue
            types = view.types
            p = (view.unigram(token) + types * uniform) / (view.total + types) if view.total else uniform
            if self.order == 1:
                seen, distinct = view.history(prev)
                if seen:
                    p = (view.transition(prev, token) + distinct * p) / (seen + distinct)
            total += math.log(p)
            n += 1
        return total / n if n else 0.0

    def _log_likelihood(self, counts: Counts, sequence: Sequence[str]) -> float:
        """log_likelihood with nothing excluded, read from the counts directly: the same numbers, operation for
        operation (identify scores every session against every user: most of the real-user tables' time)."""
        uniform = 1.0 / self.vocabulary
        unigrams, transitions, followers = counts.unigrams, counts.transitions, counts.followers
        everything, types = counts.total, len(unigrams)
        total, n = 0.0, 0
        for prev, token in zip(sequence, sequence[1:], strict=False):
            p = (unigrams.get(token, 0) + types * uniform) / (everything + types) if everything else uniform
            if self.order == 1:
                mine = transitions.get(prev)
                if mine and followers[prev]:
                    p = (mine.get(token, 0) + len(mine) * p) / (followers[prev] + len(mine))
            total += math.log(p)
            n += 1
        return total / n if n else 0.0

    def llr(self, user: str, sequence: Sequence[str], *, exclude: Sequence[str] | None = None) -> float:
        """Mean log-likelihood ratio per action: `user`'s model against everyone's. High: like this user.
        `exclude`: a session to take out of both first (the session itself, to score it against the others)."""
        if user not in self.users:
            raise KeyError(f"no sessions of user {user!r} (known: {', '.join(sorted(self.users)) or 'none'})")
        minus = Counts.of(exclude) if exclude is not None else None
        return (self.log_likelihood(self.users[user], sequence, minus)
                - self.log_likelihood(self.everyone, sequence, minus))

    def identify(self, sequence: Sequence[str], users: Iterable[str] | None = None) -> str:
        """The user whose model gives `sequence` the highest likelihood (ties: the first name in order)."""
        names = sorted(self.users if users is None else users)
        return max(names, key=lambda u: self.log_likelihood(self.users[u], sequence))


COMMAND_ALPHA = 0.01  # the naive Bayes' additive smoothing (Maxion and Townsend, DSN 2002)


@dataclass(frozen=True)
class HabitKind:
    """Which habit model a detector fits, and what it reads of a session: the action tokens (`tokens`) or the
    command names only (`commands`)."""

    name: str
    order: int
    alpha: float | None = None
    commands_only: bool = False

    def sequence(self, traj: Trajectory) -> list[str]:
        return commands(traj) if self.commands_only else tokens(traj)

    def model(self) -> HabitModel:
        return HabitModel(self.order, self.alpha)

    @property
    def label(self) -> str:
        """The name a result row carries ("naive_bayes(alpha=0.01)" names its smoothing)."""
        return f"{self.name}(alpha={self.alpha:g})" if self.alpha is not None else self.name


MODELS = ("markov", "multinomial", "naive_bayes")  # Witten-Bell order 1 / order 0 over action tokens; additive
# smoothing over command names (the masquerade literature's naive Bayes)


def habit_kind(model: str = "markov", alpha: float | None = None) -> HabitKind:
    """The `HabitKind` named `model`; `alpha` (naive_bayes only, default COMMAND_ALPHA) its smoothing."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    if alpha is not None and model != "naive_bayes":
        raise ValueError(f"alpha is the naive Bayes' additive smoothing (model='naive_bayes'), not {model!r}'s")
    if model == "naive_bayes":
        alpha = COMMAND_ALPHA if alpha is None else alpha
        if alpha <= 0:
            raise ValueError(f"alpha must be > 0, got {alpha}")
        return HabitKind(model, 0, alpha, commands_only=True)
    return HabitKind(model, 1 if model == "markov" else 0)


MARKOV = habit_kind("markov")


def habit_scores(trajs: Iterable[Trajectory], *, kind: HabitKind = MARKOV) -> pl.DataFrame:
    """Per session, how like its user it is, scored against the user's *other* sessions (its own counts taken
    out first): `habit_ll`, the mean log-likelihood per action under them (one-class: needs no other user),
    and `habit_llr`, the ratio to everyone's other sessions (null when the corpus has one user). Low: a
    session unlike its user. Users with one session get nulls. Sorted by trajectory_id. `kind`: the model."""
    sessions = [(t.id, t.profile_id or "", kind.sequence(t)) for t in trajs]
    model = kind.model()
    for _, user, sequence in sessions:
        model.update(user, sequence)
    per_user = Counter(user for _, user, _ in sessions)
    rows = []
    for tid, user, sequence in sessions:
        ll = llr = None
        if per_user[user] > 1:
            minus = Counts.of(sequence)
            ll = model.log_likelihood(model.users[user], sequence, minus)
            if len(per_user) > 1:
                llr = ll - model.log_likelihood(model.everyone, sequence, minus)
        rows.append((tid, user, len(sequence) - 1, ll, llr))
    return pl.DataFrame(rows, schema=HABIT_SCHEMA, orient="row").sort("trajectory_id")


HABIT_DRIFT_SCHEMA = {"trajectory_id": pl.String, "habit_deviation": pl.Float64, "habit_threshold": pl.Float64,
                      "habit_flagged": pl.Boolean, "unusual_actions": pl.List(pl.String)}
UNUSUAL_SHOWN = 3


def unusual_actions_of(session: Counter[str], others: Counter[str]) -> list[str]:
    """The actions this session takes far more often than the user's other sessions (smoothed log ratio)."""
    n, m = sum(session.values()) or 1, sum(others.values()) or 1
    ratio = {t: math.log((c + 0.5) / (n + 1)) - math.log((others.get(t, 0) + 0.5) / (m + 1))
             for t, c in session.items()}
    return [t for t, r in sorted(ratio.items(), key=lambda kv: (-kv[1], kv[0])) if r > 0][:UNUSUAL_SHOWN]


def habit_drift(trajs: Iterable[Trajectory], *, tau: float = 1.5, kind: HabitKind = MARKOV,
                min_sessions: int = 3) -> pl.DataFrame:
    """Paper Eq. 1's flag on the habit model's score: `habit_deviation` = -habit_ll (mean surprise per action
    against the user's other sessions), flagged above the user's mean + tau * sd of it (users with at least
    `min_sessions` sessions; never when all are equal); `unusual_actions`: what the session does far more
    often than the user's other sessions (its commands, for a commands-only `kind`)."""
    trajs = list(trajs)
    scores = habit_scores(trajs, kind=kind)
    counts = {t.id: Counter(kind.sequence(t)[1:]) for t in trajs}
    users: dict[str, Counter[str]] = defaultdict(Counter)
    for t in trajs:
        users[t.profile_id or ""] += counts[t.id]
    dev = -pl.col("habit_ll")
    out = scores.with_columns(dev.alias("habit_deviation")).with_columns(
        pl.when(pl.len().over("profile_id") >= min_sessions)
        .then(pl.col("habit_deviation").mean().over("profile_id")
              + tau * pl.col("habit_deviation").std(ddof=1).over("profile_id")).alias("habit_threshold"),
        (pl.col("habit_deviation").max().over("profile_id") > pl.col("habit_deviation").min().over("profile_id"))
        .alias("_spread"))
    out = out.with_columns((pl.col("_spread") & (pl.col("habit_deviation") > pl.col("habit_threshold")))
                           .fill_null(False).alias("habit_flagged"))
    unusual = {tid: unusual_actions_of(counts[tid], users[user] - counts[tid])
               for tid, user in zip(out["trajectory_id"], out["profile_id"], strict=True)}
    out = out.with_columns(pl.col("trajectory_id").replace_strict(unusual, return_dtype=pl.List(pl.String))
                           .alias("unusual_actions"))
    return out.select(list(HABIT_DRIFT_SCHEMA))
