"""Stage 2: consolidate a user's Engrams into three channels (paper §5).

- Procedural: mean / median / std / min / max of each fingerprint feature over the sessions, the
  L/M/R reading of each dimension with its confidence (calibration.py), and absences (behaviours
  never seen, e.g. "never deleted a file").
- Semantic: output language, file types, naming conventions, representative names, the merged
  style descriptor and a cross-session style summary (`summarize` task), per-session previews and
  edit chains, and up to 50 embedded chunks, taken round-robin across sessions with non-deviant
  sessions first so one long session cannot crowd out the rest.
- Episodic: every episode embedded and clustered (agglomerative, average linkage, cosine, distance
  threshold 0.6), sessions clustered by fingerprint (k-means on within-user z-scores, <= 3
  clusters), and the drift frame (deviation flags with the anomaly judge's labels).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from ...behaviour.fingerprint import FEATURE_DIMENSION, FEATURES, with_zscores, zscores
from ...behaviour.session_drift import drift_frame, with_habit
from ...util.float_ties import ranked
from .calibration import Calibration, Reading
from .engram import Engram, procedural_frame
from .episodes import Episode
from .kmeans import kmeans
from .semantic import Chunk, EditStep, FilePreview, naming_conventions

if TYPE_CHECKING:
    from ...llm.base import Backend

MAX_CHUNKS = 50
EPISODE_DISTANCE = 0.6
MAX_SESSION_CLUSTERS = 3
ABSENCES = {  # feature whose sum over all sessions is 0 -> what the user never did
    "dirs_created": "never created a folder", "files_moved": "never moved a file",
    "total_edits": "never edited a file after writing it", "total_deletes": "never deleted a file",
    "image_files": "never produced an image", "structured_files": "never produced a structured data file",
    "md_table_rows": "never wrote a Markdown table",
}


@dataclass(frozen=True)
class ProceduralChannel:
    stats: pl.DataFrame  # feature, dimension, mean, median, std, min, max
    readings: tuple[Reading, ...]
    absences: tuple[str, ...]
    sessions: int


@dataclass(frozen=True)
class SemanticChannel:
    languages: dict[str, int]  # language -> sessions
    file_types: dict[str, int]
    naming: dict[str, float]
    filenames: tuple[str, ...]
    style: dict[str, Any]  # majority tone / structure / detail with counts
    style_summary: str
    previews: dict[str, tuple[FilePreview, ...]]  # session -> created files
    edits: dict[str, tuple[EditStep, ...]]
    chunks: tuple[Chunk, ...]
    embeddings: np.ndarray  # one row per chunk


@dataclass(frozen=True)
class EpisodicChannel:
    episodes: tuple[Episode, ...]
    embeddings: np.ndarray
    episode_clusters: tuple[int, ...]  # cluster label per episode
    session_clusters: dict[str, int]
    cluster_profiles: tuple[str, ...]  # one description per session cluster
    drift: pl.DataFrame  # drift_frame plus `session`
    session_z: dict[str, dict[str, float]]  # session -> feature -> z against the user's sessions


def procedural_channel(fp: pl.DataFrame, calibration: Calibration) -> ProceduralChannel:
    stats = pl.DataFrame({
        "feature": list(FEATURES), "dimension": [FEATURE_DIMENSION[f] for f in FEATURES],
        **{name: [float(getattr(fp[f], name)() or 0.0) for f in FEATURES]
           for name in ("mean", "median", "std", "min", "max")},
    }).with_columns(pl.col("mean", "median", "std", "min", "max").fill_nan(0.0).round(3))
    means = dict(zip(stats["feature"], stats["mean"], strict=True))
    absences = tuple(text for feature, text in ABSENCES.items() if fp[feature].sum() == 0)
    if fp["search_ratio"].sum() == 0:
        absences += ("never searched",)
    if fp["browse_ratio"].sum() == 0:
        absences += ("never listed a folder",)
    return ProceduralChannel(stats, tuple(calibration.read(means)), absences, fp.height)


def _majority(values: list[str]) -> tuple[str, int]:
    counts = Counter(v for v in values if v)
    return counts.most_common(1)[0] if counts else ("unknown", 0)


def _select_chunks(engrams: list[Engram], flagged: set[str], limit: int) -> list[Chunk]:
    """Round-robin over sessions (non-flagged first), each session's chunks in order, up to `limit`."""
    queues = [list(e.semantic.chunks) for e in sorted(engrams, key=lambda e: e.trajectory_id in flagged)]
    out: list[Chunk] = []
    while len(out) < limit and any(queues):
        for queue in queues:
            if queue and len(out) < limit:
                out.append(queue.pop(0))
    return out


def semantic_channel(engrams: list[Engram], flagged: set[str], backend: Backend, max_chunks: int) -> SemanticChannel:
    units = [e.semantic for e in engrams]
    styled = [u.style for u in units if u.style]
    style = {key: _majority([str(s.get(key, "")) for s in styled]) for key in ("tone", "structure", "detail")}
    merged = {key: {"value": value, "sessions": n, "of": len(styled)} for key, (value, n) in style.items()}
    lines = [str(s["summary"]) for s in styled if s.get("summary")]
    summary = backend.summarize("\n".join(f"{line}." for line in lines), max_words=40) if lines else ""
    names = [p.file for u in units for p in u.previews]
    chunks = _select_chunks(engrams, flagged, max_chunks)
    vectors = backend.embed([c.text for c in chunks]) if chunks else np.zeros((0, 0), dtype=np.float32)
    return SemanticChannel(
        languages=dict(Counter(u.language for u in units if u.language != "unknown").most_common()),
        file_types=dict(sum((Counter(u.file_types) for u in units), Counter()).most_common()),
        naming=naming_conventions(names),
        filenames=tuple(dict.fromkeys(f for u in units for f in u.filenames))[:10],
        style=merged, style_summary=summary,
        previews={e.session: e.semantic.previews for e in engrams},
        edits={e.session: e.semantic.edits for e in engrams},
        chunks=tuple(chunks), embeddings=vectors,
    )


def cluster_episodes(vectors: np.ndarray, threshold: float = EPISODE_DISTANCE) -> list[int]:
    """Agglomerative clusters (average linkage, cosine distance, cut at `threshold`); zero vectors stand alone."""
    if len(vectors) < 2:
        return [0] * len(vectors)
    from sklearn.cluster import AgglomerativeClustering

    norms = np.linalg.norm(vectors, axis=1)
    safe = np.where(norms[:, None] > 0, vectors, 0.0)
    safe[norms == 0, 0] = 1.0  # cosine needs a direction; these rows are then far from real text
    labels = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average",
                                     distance_threshold=threshold).fit_predict(safe)
    return [int(x) for x in labels]


def _z_matrix(fp: pl.DataFrame) -> np.ndarray:
    """Sessions x features, z-scored against the user's own sessions (`fp`: one user's sessions; its z_<key>
    columns are used when it has them)."""
    fp = with_zscores(fp.with_columns(pl.lit("u").alias("_user")), by="_user")
    return fp.select([f"z_{f}" for f in FEATURES]).to_numpy().astype(float)


def cluster_sessions(mat: np.ndarray, sessions: list[str], seed: int = 0) -> tuple[dict[str, int], list[str]]:
    """k-means on within-user z-scored fingerprints (`_z_matrix`; <= 3 clusters) and a description of each."""
    k = min(MAX_SESSION_CLUSTERS, len(sessions), len({tuple(r) for r in mat.round(6)}))
    if k <= 1:
        return dict.fromkeys(sessions, 0), [f"1 group of {len(sessions)} session(s): {', '.join(sessions)}"]
    labels = kmeans(mat, k, seed=seed)
    order = sorted(set(labels), key=lambda c: (-int((labels == c).sum()), sessions[int(np.argmax(labels == c))]))
    relabel = {old: new for new, old in enumerate(order)}
    described = []
    for old in order:
        members = [s for s, lab in zip(sessions, labels, strict=True) if lab == old]
        centre = mat[labels == old].mean(axis=0)
        top = ranked(np.abs(centre))[:2]
        traits = ", ".join(f"{'high' if centre[i] > 0 else 'low'} {FEATURES[i]} ({centre[i]:+.1f} sd)" for i in top)
        described.append(f"{len(members)} session(s) ({', '.join(members)}): {traits}")
    return {s: relabel[lab] for s, lab in zip(sessions, labels, strict=True)}, described


def episodic_channel(engrams: list[Engram], fp: pl.DataFrame, drift: pl.DataFrame, backend: Backend,
                     seed: int = 0) -> EpisodicChannel:
    eps = [ep for e in engrams for ep in e.episodes]
    texts = [f"{ep.title}. {ep.summary} {ep.narrative}" for ep in eps]
    vectors = backend.embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
    sessions = [e.session for e in engrams]
    mat = _z_matrix(fp)
    clusters, profiles = cluster_sessions(mat, sessions, seed)
    z = {s: dict(zip(FEATURES, row.round(2).tolist(), strict=True)) for s, row in zip(sessions, mat, strict=True)}
    return EpisodicChannel(tuple(eps), vectors, tuple(cluster_episodes(vectors)), clusters, tuple(profiles), drift,
                           z)


def consolidate(engrams: list[Engram], calibration: Calibration, backend: Backend, *, tau: float = 1.5,
                max_chunks: int = MAX_CHUNKS, seed: int = 0, habit: pl.DataFrame | None = None,
                detector: str = "fingerprint"):
    """The three channels of one user's memory, plus the per-session drift frame (`habit`: the habit model's
    verdicts, `habit.habit_drift`, used as `detector` says: `drift.with_habit`)."""
    fp = procedural_frame(engrams).with_columns(pl.lit("user").alias("profile_id"))
    scored = zscores(fp, by="profile_id")  # one user: the z-scores drift and the session clusters both read
    habit_only = habit is not None and detector == "habit"  # its frame drops the judge's labels: do not ask
    drift = drift_frame(scored, backend=backend, tau=tau, judge=not habit_only)
    if habit is not None and detector != "fingerprint":
        drift = with_habit(drift, habit, detector)
    drift = drift.join(fp.select("trajectory_id", "session"), on="trajectory_id", how="left")
    flagged = set(drift.filter(pl.col("flagged"))["trajectory_id"])
    return (procedural_channel(fp, calibration), semantic_channel(engrams, flagged, backend, max_chunks),
            episodic_channel(engrams, scored, drift, backend, seed))
