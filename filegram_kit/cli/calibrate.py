"""`filegram calibrate`: refit FileGramOS's L/M/R readings on synthetic personas run through the offline engine.

It drives the engine (engine/) and fits the memory's classifiers (memory/filegramos/calibration.py), so
it lives here, above both: memory/ never imports the generator.
"""

from __future__ import annotations

from pathlib import Path

from ..memory.filegramos.calibration import CALIBRATION_SEED, Calibration, fit_calibration


def calibrate(corpus_dir: str | Path, *, personas: int = 48, seed: int = CALIBRATION_SEED, workers: int | None = None,
              tasks: list[str] | None = None, progress: bool | None = None) -> Calibration:
    """Draw `personas` synthetic personas, run the offline engine on the tasks (default all 32) into
    `corpus_dir` (resumable), and fit the classifiers on their fingerprints."""
    from ..behaviour.fingerprint import fingerprints
    from ..engine.corpus import build_corpus, engine_fingerprint
    from ..traces.load import load_trajectories
    from ..traces.profiles import sample_profiles

    profiles = sample_profiles(personas, seed=seed)
    build_corpus(corpus_dir, seed=seed, profiles=profiles, tasks=tasks, workers=workers, progress=progress)
    trajs = load_trajectories(corpus_dir, profiles=[p.id for p in profiles], check_media=False, progress=progress)
    tiers = {p.id: {d: t.value for d, t in p.tiers.items()} for p in profiles}
    meta = {"engine": engine_fingerprint()[:16], "seed": seed, **({"tasks": list(tasks)} if tasks else {}),
            "method": "multinomial logistic regression per dimension on per-persona mean fingerprints"}
    return fit_calibration(fingerprints(trajs), tiers, seed=seed, meta=meta)
