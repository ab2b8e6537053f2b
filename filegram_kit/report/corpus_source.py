"""The trace corpus behind corpus-backed artifacts: all 20 personas x 32 tasks, built once.

    default_corpus() -> data/corpus        (or $FILEGRAM_CORPUS; seed != 0 -> data/corpus_seed<N>)
    style_pack_corpus(corpus, "B") -> data/corpus_b   (same seed, personas and tasks, other wording)

`build_corpus` resumes, so the first call takes about a minute on 2 cores and later calls only
check that every trajectory is there. Resuming alone would keep trajectories an older engine
wrote, so the folder also holds `.source_hash`, a hash of the code and data that decide what a
trajectory contains; when it changes the corpus is rebuilt from scratch.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl

from ..engine import build_corpus
from ..engine.corpus import engine_fingerprint
from ..util.paths import project_root

ENV_VAR = "FILEGRAM_CORPUS"
STAMP = ".source_hash"


def corpus_dir(seed: int = 0) -> Path:
    """Where the default corpus of `seed` lives (nothing is built)."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    return project_root() / "data" / ("corpus" if seed == 0 else f"corpus_seed{seed}")


def source_hash() -> str:
    """The engine's fingerprint (`filegram_kit.engine.corpus.engine_fingerprint`): what decides the bytes."""
    return engine_fingerprint()


def expected_stamp(personas: tuple[str, ...] | list[str] | None = None, seed: int = 0) -> dict[str, object]:
    """The corpus facts (`reproduce.corpus_stamp`) of what `default_corpus` (or `quick_corpus` for `personas`)
    returns once built by this checkout's engine, known without building it (`filegram reproduce --plan`)."""
    from ..engine.corpus import ENGINE_VERSION
    from ..traces.profiles import load_profiles
    from ..traces.tasks import load_tasks

    count = len(personas) if personas else len(load_profiles())
    return {"engine": source_hash()[:16], "engine_version": ENGINE_VERSION, "agent": "offline", "seed": seed,
            "style_pack": "A", "trajectories": count * len(load_tasks())}


def _drop_if_stale(out: Path, current: str) -> None:
    stamp = out / STAMP
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() != current:
        print(f"{out}: the engine changed since this corpus was built; rebuilding it")
        shutil.rmtree(out)


def default_corpus(seed: int = 0, *, progress: bool | None = None) -> Path:
    """Build (or finish, or just check) the full corpus and return its root folder."""
    out = corpus_dir(seed)
    current = source_hash()
    _drop_if_stale(out, current)
    build_corpus(out, seed=seed, progress=progress)
    (out / STAMP).write_text(current + "\n", encoding="utf-8")
    return out


def quick_corpus(personas: tuple[str, ...] | list[str], seed: int = 0, *, progress: bool | None = None) -> Path:
    """These personas x all 32 tasks, built (or checked) into data/corpus_quick (`filegram reproduce --quick`)."""
    from ..traces.profiles import load_profiles

    known = load_profiles()
    unknown = [p for p in personas if p not in known]
    if unknown:
        raise KeyError(f"quick corpus: unknown persona(s) {unknown}; personas: {', '.join(known)}")
    out = corpus_dir(seed).with_name("corpus_quick" if seed == 0 else f"corpus_quick_seed{seed}")
    current = source_hash()
    _drop_if_stale(out, current)
    if (out / "corpus.json").is_file():
        built = json.loads((out / "corpus.json").read_text(encoding="utf-8")).get("profiles", [])
        if sorted(built) != sorted(personas):
            print(f"{out}: built for other personas; rebuilding it")
            shutil.rmtree(out)
    build_corpus(out, seed=seed, profiles=[known[p] for p in personas], progress=progress)
    (out / STAMP).write_text(current + "\n", encoding="utf-8")
    return out


def style_pack_corpus(corpus: str | Path, style_pack: str, *, progress: bool | None = None) -> Path:
    """`corpus`'s twin in another style pack: the same seed, personas and tasks, worded by `style_pack`,
    built (or finished, or checked) beside it as `<name>_<pack>` (data/corpus -> data/corpus_b)."""
    from ..traces.profiles import load_profiles

    corpus = Path(corpus)
    try:
        info = json.loads((corpus / "corpus.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{corpus}: no readable corpus.json ({exc}); a style-pack twin needs the corpus' "
                         "manifest (seed, personas, tasks)") from None
    if info.get("style_pack", "A") == style_pack:
        return corpus
    if info.get("agent", "offline") != "offline":
        raise ValueError(f"{corpus} was written by {info['agent']}; style packs word the offline agent only")
    out = corpus.with_name(f"{corpus.name}_{style_pack.lower()}")
    personas = load_profiles(corpus / "profiles.json") if (corpus / "profiles.json").is_file() else load_profiles()
    current = source_hash()
    _drop_if_stale(out, current)
    build_corpus(out, seed=info["seed"], profiles=[personas[p] for p in info["profiles"]], tasks=info["tasks"],
                 style_pack=style_pack, progress=progress)
    (out / STAMP).write_text(current + "\n", encoding="utf-8")
    return out


def resolve_corpus(corpus: str | Path | None) -> Path:
    """`corpus` as a path; the default corpus (built on first use) when None."""
    return default_corpus() if corpus is None else Path(corpus)


def ground_truth(corpus: str | Path) -> tuple[dict, list[dict]]:
    """(personas, perturbation rows) of a corpus: its profiles.json (else the paper personas) and
    perturbations.json (else none). Only for scoring and views; memories never see them."""
    from ..traces.profiles import load_profiles

    corpus = Path(corpus)
    personas = load_profiles(corpus / "profiles.json") if (corpus / "profiles.json").is_file() else load_profiles()
    manifest = corpus / "perturbations.json"
    return personas, json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else []


def cleaned_frame(corpus: str | Path, *, progress: bool | None = None) -> pl.DataFrame:
    """The corpus's behavioral events (after `clean()`) as one polars frame (`events_frame`)."""
    from ..store import behaviour

    return behaviour(corpus, check_media=False, progress=progress)[0].collect()  # the store where current
