"""The 20 paper personas as data, new synthetic personas, and the perturbation schedule.

Data: `data/profiles.json`, written by this project from paper Table 9 (dimension tiers, E =
Curation) and the release's persona files (identity and per-attribute values). Attribute values
were mapped onto paper Table 8's L/M/R scale by each vocabulary's own order
(e.g. tone professional/friendly/casual -> L/M/R), with three rules:

* `working_style` carries the engine's *work rhythm* tier (phased/steady/bursty), the only place
  rhythm survives now that E means curation (project decision 1);
* `version_strategy`, shared by C and D, follows D; when D is balanced (M) a flat organiser
  (C = R) overwrites in place (R), anyone else keeps backup copies (M). The rule reproduces all
  20 release personas;
* `revision_depth`, `cleanup_policy` and `output_modality`, absent from the release's files,
  take their dimension's tier.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ..util.seeds import stable_seed
from .datafiles import parse_records, read_document
from .schema import ATTRIBUTES, BEHAVIORAL_ATTRIBUTES, DIMENSION_CODES, TIERS, Profile, Tier
from .tasks import load_tasks

DATA_FILE = "profiles.json"


class ProfileDataError(ValueError):
    """A profiles file that does not follow the schema; the message names file, profile and field."""


def version_strategy_tier(c: Tier | str, d: Tier | str) -> Tier:
    """Tier of `version_strategy` from dimensions C and D (see module docstring)."""
    c, d = Tier.parse(c), Tier.parse(d)
    if d != Tier.M:
        return d
    return Tier.R if c == Tier.R else Tier.M


def _parse_profile(raw: object, where: str) -> Profile:
    if not isinstance(raw, dict):
        raise ProfileDataError(f"{where}: expected an object, got {type(raw).__name__}")
    for key in ("id", "name", "role", "language", "tiers", "attributes"):
        if key not in raw:
            raise ProfileDataError(f"{where}: missing field '{key}'")
    try:
        tiers = {d: Tier.parse(raw["tiers"][d]) for d in DIMENSION_CODES}
    except (KeyError, TypeError, ValueError) as exc:
        raise ProfileDataError(f"{where}: field 'tiers' needs L/M/R for each of A-F ({exc})") from None
    attrs = {}
    for name in BEHAVIORAL_ATTRIBUTES:
        value = raw["attributes"].get(name) if isinstance(raw["attributes"], dict) else None
        if value is None:
            raise ProfileDataError(f"{where}: field 'attributes.{name}' is missing")
        try:
            attrs[name] = Tier.parse(value)
        except ValueError as exc:
            raise ProfileDataError(f"{where}: field 'attributes.{name}': {exc}") from None
    return Profile(str(raw["id"]), str(raw["name"]), str(raw["role"]), str(raw["language"]), tiers, attrs,
                   bool(raw.get("synthetic", False)))


def load_profiles(path: str | Path | None = None) -> dict[str, Profile]:
    """Profiles by id: the 20 paper personas by default, or those of a file in the same format."""
    if path is None:
        return dict(_paper_profiles())
    return _parse_document(*read_document(path, DATA_FILE, ProfileDataError))


def profiles_document(profiles: Iterable[Profile], source: str) -> dict:
    """The JSON document `load_profiles(path)` reads back (e.g. the personas a corpus was built with)."""
    return {"version": 1, "source": source, "profiles": [
        {"id": p.id, "name": p.name, "role": p.role, "language": p.language,
         "tiers": {d: p.tiers[d].value for d in DIMENSION_CODES},
         "attributes": {a: p.attributes[a].value for a in BEHAVIORAL_ATTRIBUTES}, "synthetic": p.synthetic}
        for p in profiles]}


def _parse_document(doc: object, name: str) -> dict[str, Profile]:
    return parse_records(doc, name, "profiles", _parse_profile, noun="profile", id_field="id", error=ProfileDataError)


@cache
def _paper_profiles() -> tuple[tuple[str, Profile], ...]:
    return tuple(_parse_document(*read_document(None, DATA_FILE, ProfileDataError)).items())


def get_profile(profile_id: str) -> Profile:
    profiles = load_profiles()
    if profile_id in profiles:
        return profiles[profile_id]
    matches = [p for p in profiles.values() if p.id.split("_")[0] == profile_id]  # "p1" -> "p1_methodical"
    if len(matches) == 1:
        return matches[0]
    raise KeyError(f"unknown profile {profile_id!r}; known: {', '.join(profiles)}")


def design_pairs() -> list[tuple[Profile, Profile, str]]:
    """The release's designed persona pairs: (a, b, 'fine' | 'coarse')."""
    doc, _ = read_document(None, DATA_FILE, ProfileDataError)
    profiles = load_profiles()
    return [(profiles[p["a"]], profiles[p["b"]], p["kind"]) for p in doc["design_pairs"]]


# ---------------------------------------------------------------------------------------------
# Synthetic personas


def attribute_model(reference: dict[str, Profile] | None = None) -> dict[str, dict[Tier, dict[Tier, float]]]:
    """P(attribute tier | its dimension's tier), estimated from reference personas (default: the paper's 20).

    Sampled personas then diverge from their dimension tiers exactly as often as the paper's do
    (e.g. tone often stays formal while output length varies).
    """
    reference = reference or load_profiles()
    model: dict[str, dict[Tier, dict[Tier, float]]] = {}
    for name in BEHAVIORAL_ATTRIBUTES:
        dim = ATTRIBUTES[name].dimensions[-1]
        model[name] = {}
        for given in TIERS:
            seen = [p.attributes[name] for p in reference.values() if p.tiers[dim] == given]
            counts = {t: seen.count(t) for t in TIERS} if seen else {t: float(t == given) for t in TIERS}
            total = sum(counts.values())
            model[name][given] = {t: c / total for t, c in counts.items()}
    return model


def attributes_for(tiers: dict[str, Tier], rng: np.random.Generator,
                   model: dict[str, dict[Tier, dict[Tier, float]]]) -> dict[str, Tier]:
    attrs = {}
    for name in BEHAVIORAL_ATTRIBUTES:
        if name == "version_strategy":
            attrs[name] = version_strategy_tier(tiers["C"], tiers["D"])
            continue
        dist = model[name][tiers[ATTRIBUTES[name].dimensions[-1]]]
        attrs[name] = TIERS[int(rng.choice(3, p=[dist[t] for t in TIERS]))]
    return attrs


_NAMES = {
    "English": ("Hannah Brooks", "Omar Haddad", "Grace Miller", "Ravi Patel", "Elena Petrova", "Lucas Moreau",
                "Fatima Bello", "Noah Fischer", "Chloe Martin", "Samuel Adeyemi", "Isabel Costa", "Ethan Walsh"),
    "Chinese": ("Zhou Lan", "Huang Jie", "Xu Ning", "Sun Yue", "Ma Lei", "He Qian",
                "Guo Tao", "Luo Min", "Tang Yi", "Feng Rui", "Deng Hui", "Cao Xin"),
}
_ROLES = ("Grant Writer", "Hospital Administrator", "Data Journalist", "Procurement Officer", "Urban Planner",
          "Clinical Researcher", "Product Manager", "Legal Assistant", "Archivist", "Sales Analyst",
          "School Counselor", "Logistics Coordinator", "Patent Examiner", "Startup Founder", "HR Specialist",
          "Environmental Consultant", "Translator", "Insurance Underwriter")


def _draw_cycling(pool: tuple[str, ...], rng: np.random.Generator) -> Iterator[str]:
    """Draw without replacement; once the pool is used up, start a new shuffled round."""
    while True:
        yield from (pool[i] for i in rng.permutation(len(pool)))


def sample_profiles(n: int, seed: int = 0, *, exclude: dict[str, Profile] | None = None) -> list[Profile]:
    """`n` new synthetic personas, deterministic from `seed`.

    Each dimension's tiers are balanced across the sample (every tier appears once n >= 3), no two
    personas share a tier vector, none repeats a vector of `exclude` (default: the paper's 20),
    attributes follow `attribute_model`, languages alternate English/Chinese. There are only 3^6 = 729
    tier vectors: beyond the 709 the paper's 20 leave (scale runs: `filegram corpus --sample 1000`), every
    allowed vector is used once per full round and the rest are drawn as above, so personas share vectors
    but differ in attributes, language, name and role. A sample of up to 709 is as it always was.
    """
    exclude = load_profiles() if exclude is None else exclude
    taken = {p.vector for p in exclude.values()}
    if n < 1:
        raise ValueError(f"n must be at least 1 persona; got {n}")
    rng = np.random.default_rng(seed)
    limit = 3 ** len(DIMENSION_CODES) - len(taken)
    vectors = _distinct_balanced_vectors(n, taken, rng) if n <= limit else _covering_vectors(n, taken, rng)
    model = attribute_model()
    names = {lang: _draw_cycling(pool, rng) for lang, pool in _NAMES.items()}
    roles = _draw_cycling(_ROLES, rng)
    profiles = []
    for i in range(n):
        tiers = {d: TIERS[t] for d, t in zip(DIMENSION_CODES, vectors[i], strict=True)}
        lang = ("English", "Chinese")[(i + seed) % 2]
        name, role = next(names[lang]), next(roles)
        pid = f"s{seed}_{i + 1:02d}_{role.lower().replace(' ', '_')}"
        profiles.append(Profile(pid, name, role, lang, tiers, attributes_for(tiers, rng, model), synthetic=True))
    return profiles


def _spread_cost(counts: np.ndarray, n: int) -> int:
    """How far each dimension's L/M/R counts are from even (a spread of 1 is even when 3 does not divide n)."""
    spread = counts.max(axis=1) - counts.min(axis=1)
    return int(np.maximum(spread - (n % 3 != 0), 0).sum())


def _distinct_balanced_vectors(n: int, taken: set[str], rng: np.random.Generator) -> list[tuple[int, ...]]:
    """n distinct tier vectors (as index tuples), none in `taken`, each dimension's tiers as even as possible.

    Starts from a random subset of the allowed vectors, then swaps a chosen vector for an unchosen one
    whenever that does not unbalance the dimensions, until every dimension is even.
    """
    k = len(DIMENSION_CODES)
    allowed = [v for v in itertools.product(range(3), repeat=k) if "".join("LMR"[t] for t in v) not in taken]
    order = rng.permutation(len(allowed))
    chosen, rest = [allowed[i] for i in order[:n]], [allowed[i] for i in order[n:]]
    counts = np.zeros((k, 3), dtype=np.int64)
    for v in chosen:
        counts[np.arange(k), v] += 1
    cost = _spread_cost(counts, n)
    for _ in range(50_000 + 100 * n):
        if cost == 0 or not rest:
            break
        i, j = int(rng.integers(n)), int(rng.integers(len(rest)))
        out, inn = chosen[i], rest[j]
        counts[np.arange(k), out] -= 1
        counts[np.arange(k), inn] += 1
        new_cost = _spread_cost(counts, n)
        if new_cost <= cost:
            chosen[i], rest[j], cost = inn, out, new_cost
        else:
            counts[np.arange(k), inn] -= 1
            counts[np.arange(k), out] += 1
    if cost:
        raise RuntimeError(f"could not balance {n} distinct personas over the tiers; try another seed or a smaller n")
    return chosen


def _covering_vectors(n: int, taken: set[str], rng: np.random.Generator) -> list[tuple[int, ...]]:
    """n > the allowed vectors: every allowed vector once per full round (shuffled), the remainder distinct
    and balanced (`_distinct_balanced_vectors`)."""
    allowed = [v for v in itertools.product(range(3), repeat=len(DIMENSION_CODES))
               if "".join("LMR"[t] for t in v) not in taken]
    rounds, rest = divmod(n, len(allowed))
    vectors = [allowed[i] for _ in range(rounds) for i in rng.permutation(len(allowed))]
    return vectors + (_distinct_balanced_vectors(rest, taken, rng) if rest else [])


# ---------------------------------------------------------------------------------------------
# Perturbation schedule (spec 10.4)

PERTURBATION_CANDIDATES: tuple[str, ...] = ("T-12", "T-16", "T-18", "T-22", "T-24", "T-26", "T-29", "T-31")


@dataclass(frozen=True)
class Perturbation:
    """One trajectory where a persona behaves one tier away on one task-relevant dimension."""

    profile_id: str
    task_id: str
    dimension: str
    from_tier: Tier
    to_tier: Tier

    @property
    def trajectory_id(self) -> str:
        return f"{self.profile_id}_{self.task_id}"


def shifted_tier(tier: Tier, rng: np.random.Generator) -> Tier:
    """One tier away: L->M, R->M, M->L or R at random."""
    if tier != Tier.M:
        return Tier.M
    return (Tier.L, Tier.R)[int(rng.integers(2))]


def perturbation_schedule(profiles: dict[str, Profile] | list[Profile] | None = None, *, seed: int = 0,
                          candidates: tuple[str, ...] = PERTURBATION_CANDIDATES,
                          per_profile: int = 5) -> list[Perturbation]:
    """For each persona, `per_profile` of the candidate tasks, each with one of the task's activated
    dimensions shifted one tier. Each persona's draw depends only on (seed, its id), so adding personas
    never changes the others' schedule."""
    profiles = load_profiles() if profiles is None else profiles
    items = profiles.values() if isinstance(profiles, dict) else profiles
    tasks = load_tasks()
    unknown = [t for t in candidates if t not in tasks]
    if unknown or not 0 < per_profile <= len(candidates):
        raise ValueError(f"need {per_profile} known candidate tasks; unknown: {unknown}, given {len(candidates)}")
    out = []
    for profile in items:
        rng = np.random.default_rng([seed, stable_seed(profile.id, bits=32)])
        chosen = sorted(rng.choice(candidates, size=per_profile, replace=False).tolist())
        for task_id in chosen:
            dims = tasks[task_id].dims_full
            dim = dims[int(rng.integers(len(dims)))]
            out.append(Perturbation(profile.id, task_id, dim, profile.tiers[dim],
                                    shifted_tier(profile.tiers[dim], rng)))
    return out
