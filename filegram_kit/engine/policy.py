"""Tiers -> behavior: the knobs the offline agent follows in one trajectory.

A persona's tier only shows where the task gives it room. For each dimension the policy decides
whether this trajectory *expresses* the persona's tier: with probability 0.85 on a dimension the task
fully activates (paper Table 10), 0.5 on a partial one and 0.12 otherwise; when it does not, the agent
falls back to the task's neutral behavior (`NEUTRAL`). A perturbed dimension is always expressed.

Every knob is drawn from a distribution whose tier means differ but whose spreads overlap, and each
trajectory draws its own values, so adjacent tiers are not trivially separable and no two runs of a
persona look the same. Table 8's finer attributes (`ATTRIBUTE_EFFECTS`) then scale their dimension's
knobs where it shows; tone, naming and version strategy are personal style and show everywhere.

What a trajectory *shows* is recorded (`Policy.expression`): the tier each dimension expressed, and
the attributes whose effect fired (applied, and its knob consulted by the agent during the run).
The bench keys its items on this evidence, never on the persona's tiers alone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from ..traces.profiles import Perturbation
from ..traces.schema import DIMENSION_CODES, Profile, Task, Tier

EXPRESSION = {"full": 0.85, "partial": 0.5, "none": 0.12}
NEUTRAL = {"A": Tier.L, "B": Tier.M, "C": Tier.M, "D": Tier.R, "E": Tier.R, "F": Tier.R}


def _pick(tier: Tier, l, m, r):  # noqa: E741 - L/M/R columns read like the paper's tables
    return {Tier.L: l, Tier.M: m, Tier.R: r}[tier]


@dataclass(frozen=True)
class Policy:
    """Effective tiers, what this trajectory shows, and the drawn behavior knobs."""

    tiers: dict[str, Tier]  # persona tiers after the perturbation
    shown: dict[str, Tier]  # tiers whose behavior this trajectory shows
    lang: str
    tone: Tier
    naming: Tier
    version: Tier  # version_strategy: L explicit v1/v2 copies, M .bak backups, R edits in place
    separator: str  # "_" or "-" in the file names this persona invents
    knobs: dict[str, float] = field(default_factory=dict)
    perturbation: Perturbation | None = None
    attributes: dict[str, Tier] = field(default_factory=dict)  # the persona's attribute tiers
    effects: frozenset[str] = frozenset()  # attributes whose ATTRIBUTE_EFFECTS factor was applied
    used: set[str] = field(default_factory=set, compare=False)  # knobs and styles the agent consulted

    def __getitem__(self, name: str) -> float:
        self.used.add(name)
        return self.knobs[name]

    def int(self, name: str) -> int:
        return int(round(self[name]))

    def note(self, style: str) -> None:
        """Record that the agent acted on a personal style ("tone", "naming" or "version")."""
        self.used.add(style)

    def expression(self) -> dict[str, dict[str, str]]:
        """What this trajectory showed: {"tiers": dimension -> tier, "attributes": attribute -> tier}.

        An attribute is listed when its behaviour reached the trace: a dimension's own attribute
        with its dimension (the tier shown), an ATTRIBUTE_EFFECTS attribute when its factor applied and
        its knob was consulted, tone / naming / version strategy when the agent wrote prose, named a
        file or decided on a backup. Call it after the run.
        """
        shown = {d: self.shown[d].value for d in DIMENSION_CODES}
        fired = {a: d for a, d in OWN_ATTRIBUTE.items()}
        fired.update({a: spec[0] for a, spec in ATTRIBUTE_EFFECTS.items()
                      if a in self.effects and spec[1] in self.used})
        attributes = {a: shown[d] if a in OWN_ATTRIBUTE else self.attributes[a].value
                      for a, d in fired.items() if a in self.attributes}
        styles = {"tone": self.tone, "naming": self.naming, "version_strategy": self.version}
        attributes.update({a: tier.value for a, tier in styles.items()
                           if ("version" if a == "version_strategy" else a) in self.used})
        return {"tiers": shown, "attributes": dict(sorted(attributes.items()))}


def effective_tiers(profile: Profile, perturbation: Perturbation | None) -> dict[str, Tier]:
    tiers = dict(profile.tiers)
    if perturbation is not None:
        if tiers[perturbation.dimension] != perturbation.from_tier:
            raise ValueError(f"perturbation {perturbation.trajectory_id}: profile {profile.id} has "
                             f"{perturbation.dimension}={tiers[perturbation.dimension]}, not {perturbation.from_tier}")
        tiers[perturbation.dimension] = perturbation.to_tier
    return tiers


def _shown(task: Task, tiers: dict[str, Tier], perturbation: Perturbation | None,
           rng: np.random.Generator) -> dict[str, Tier]:
    shown = {}
    for dim in DIMENSION_CODES:
        level = task.activation(dim)
        forced = perturbation is not None and perturbation.dimension == dim
        shown[dim] = tiers[dim] if forced or rng.random() < EXPRESSION[level] else NEUTRAL[dim]
    return shown


def _knobs(s: dict[str, Tier], rng: np.random.Generator) -> dict[str, float]:
    """Draw one trajectory's behavior; `s` holds the shown tier per dimension."""
    u, n, p = rng.uniform, rng.normal, rng.poisson
    a, b, c, d, e, f = (s[k] for k in DIMENSION_CODES)
    return {
        # A: consumption
        "read_fraction": _pick(a, u(0.55, 0.95), u(0.2, 0.5), u(0.45, 0.85)),
        "read_cap": max(2.0, _pick(a, n(9, 3), n(5, 1.5), n(7.5, 2.5))),
        "full_read_p": _pick(a, u(0.75, 1.0), u(0.15, 0.45), u(0.0, 0.25)),
        "window_fraction": _pick(a, u(0.6, 1.0), u(0.2, 0.55), u(0.1, 0.35)),
        "revisits": _pick(a, 1 + p(1.4), p(0.6), p(0.2)),
        "searches": _pick(a, float(rng.random() < 0.05), 1 + p(0.5), float(rng.random() < 0.1)),
        "browses": _pick(a, 1 + p(1.8), 1 + p(1.6), 2 + p(2.8)),
        "batch_reads_p": _pick(a, 0.3, 0.4, 0.65),
        # B: production
        "target_chars": _pick(b, u(3000, 6500), u(1000, 3000), u(300, 1000)),
        "heading_depth": _pick(b, float(rng.choice([3, 4, 4])), float(rng.choice([2, 3])), float(rng.choice([1, 2]))),
        "aux_files": _pick(b, 2 + p(1.5), p(0.9), float(rng.random() < 0.1)),
        "bullets_p": _pick(b, 0.05, 0.3, 0.85),
        # C: organization
        "dir_depth": _pick(c, float(rng.choice([3, 3, 4])), float(rng.choice([1, 1, 2])), 0.0),
        "dir_groups": _pick(c, 4 + p(1.5), 2 + p(1.0), float(rng.random() < 0.1)),
        "script_p": _pick(c, 0.4, 0.45, 0.6),
        "renames": _pick(c, p(1.1), p(0.55), p(0.2)),
        "readme_per_dir_p": _pick(c, 0.6, 0.15, 0.0),
        # D: iteration
        "own_edits": _pick(d, 2 + p(2.0), p(1.5), float(rng.random() < 0.15)),
        "edit_lines": _pick(d, u(1, 9), u(4, 24), u(25, 60)),
        "input_edits": _pick(d, 2 + p(1.2), 1 + p(0.6), 0.0),
        "backup_p": _pick(d, 0.7, 0.38, 0.05),
        "overwrite_p": _pick(d, 0.02, 0.15, 0.6),
        # E: curation
        "scratch_p": _pick(e, 0.45, 0.25, 0.3),
        "delete_scratch_p": _pick(e, 0.62, 0.15, 0.0),
        "delete_junk_p": _pick(e, 0.72, 0.25, 0.05),
        "junk_cap": _pick(e, 1 + p(1.0), 1 + p(0.5), 1.0),
        "archive_p": _pick(e, 0.05, 0.35, 0.0),
        # F: modality
        "charts": _pick(f, 1 + float(rng.random() < 0.4), float(rng.random() < 0.1), 0.0),
        "data_files": _pick(f, float(rng.random() < 0.7), float(rng.random() < 0.25), 0.0),
        "tables": _pick(f, float(rng.random() < 0.5), 1 + float(rng.random() < 0.4), 0.0),
        "image_reads": _pick(f, 1 + p(1.2), p(0.5), 0.0),
        # run noise
        "error_rate": u(0.0, 0.12),
        "context_budget": u(10_000, 40_000),
        "think_scale": rng.lognormal(0.0, 0.25),
        "checks": p(2.0),  # look-ups that leave no file event (cat, wc, find)
    }


# a dimension's own attribute (paper Table 8): it is the dimension, so it shows the dimension's shown tier
OWN_ATTRIBUTE = {"reading_strategy": "A", "output_detail": "B", "directory_style": "C", "edit_strategy": "D",
                 "cross_modal": "F"}
# Table 8's finer attributes nudge the knobs of their dimension, where the persona's tier is shown:
# attribute -> (dimension, knob, {tier: factor}). Tone and naming are personal style, shown everywhere.
ATTRIBUTE_EFFECTS: dict[str, tuple[str, str, dict[Tier, float]]] = {
    "thoroughness": ("A", "read_fraction", {Tier.L: 1.15, Tier.M: 1.0, Tier.R: 0.8}),
    "documentation": ("B", "aux_files", {Tier.L: 1.4, Tier.M: 1.0, Tier.R: 0.5}),
    "output_structure": ("B", "heading_depth", {Tier.L: 1.25, Tier.M: 1.0, Tier.R: 0.75}),
    "error_handling": ("D", "backup_p", {Tier.L: 1.3, Tier.M: 1.0, Tier.R: 0.4}),
    "revision_depth": ("D", "own_edits", {Tier.L: 1.4, Tier.M: 1.0, Tier.R: 0.6}),
    "working_style": ("E", "batch_reads_p", {Tier.L: 0.7, Tier.M: 1.0, Tier.R: 1.4}),  # burst-mode batches
    "cleanup_policy": ("E", "delete_scratch_p", {Tier.L: 1.2, Tier.M: 1.0, Tier.R: 0.4}),
    "output_modality": ("F", "data_files", {Tier.L: 1.5, Tier.M: 1.0, Tier.R: 0.3}),
}


def _applied(profile: Profile, tiers: dict[str, Tier], shown: dict[str, Tier]) -> frozenset[str]:
    """The attributes whose factor applies: the persona has them and their dimension shows its tier."""
    return frozenset(a for a, (dim, _, _) in ATTRIBUTE_EFFECTS.items()
                     if a in profile.attributes and shown[dim] == tiers[dim])


def _attribute_effects(knobs: dict[str, float], profile: Profile, applied: frozenset[str]) -> dict[str, float]:
    out = dict(knobs)
    for attribute, (_, knob, factors) in ATTRIBUTE_EFFECTS.items():
        if attribute in applied:
            out[knob] = out[knob] * factors[profile.attributes[attribute]]
    out["batch_reads_p"] = min(0.9, out["batch_reads_p"])
    out["delete_scratch_p"] = min(1.0, out["delete_scratch_p"])
    out["heading_depth"] = float(min(4, max(1, round(out["heading_depth"]))))
    return out


def make_policy(profile: Profile, task: Task, *, perturbation: Perturbation | None = None,
                rng: np.random.Generator) -> Policy:
    tiers = effective_tiers(profile, perturbation)
    shown = _shown(task, tiers, perturbation, rng)
    digest = hashlib.sha256(profile.id.encode()).digest()
    applied = _applied(profile, tiers, shown)
    knobs = _attribute_effects(_knobs(shown, rng), profile, applied)
    return Policy(tiers=tiers, shown=shown, lang=profile.lang, tone=profile.attributes.get("tone", tiers["B"]),
                  naming=profile.attributes.get("naming", tiers["C"]),
                  version=profile.attributes.get("version_strategy", tiers["D"]),
                  separator="-" if digest[0] % 4 == 0 else "_", knobs=knobs, perturbation=perturbation,
                  attributes=dict(profile.attributes), effects=applied)
