"""`filegram ...`: the workbench from the shell. Each subcommand is a thin call into the library."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections import Counter
from dataclasses import replace
from pathlib import Path

import polars as pl

from .. import __version__
from ..behaviour.habit import MODELS
from ..behaviour.past_drift import SCORES
from ..behaviour.persona_space import profiles_frame
from ..engine.corpus import CorpusError
from ..engine.style_packs import PACKS
from ..traces.load import TraceError, clean, load_trajectories, save_trajectories
from ..traces.profiles import load_profiles, perturbation_schedule, sample_profiles
from ..traces.tasks import load_tasks
from ..util.executors import ExecutorError, add_executor_arguments
from ..util.locks import Locked
from .bench import add_bench, add_eval
from .knowact import add_knowact
from .output import emit as _emit
from .record import add_record
from .store import add_store


def cmd_profiles(args: argparse.Namespace) -> int:
    profiles = sample_profiles(args.sample, seed=args.seed) if args.sample else load_profiles().values()
    _emit(profiles_frame(profiles, attributes=args.attributes), args.format)
    return 0


def cmd_tasks(args: argparse.Namespace) -> int:
    from ..report.tables import table10_tasks

    frame = table10_tasks()
    if args.prompts:
        tasks = load_tasks()
        frame = frame.with_columns(pl.Series("Prompt", [tasks[t].prompt_zh if args.prompts == "zh"
                                                        else tasks[t].prompt_en for t in frame["Task"]]))
    _emit(frame, args.format)
    return 0


def cmd_perturbations(args: argparse.Namespace) -> int:
    rows = [{"trajectory": p.trajectory_id, "dimension": p.dimension, "from": p.from_tier.value,
             "to": p.to_tier.value} for p in perturbation_schedule(seed=args.seed)]
    _emit(pl.DataFrame(rows), args.format)
    return 0


WORKER_MEMORY_GIB = 2.5  # the largest offline Table 3 worker peaks at about 2.1 GB (BENCHMARKS.md)


def machine_workers() -> int:
    """Offline worker processes for this machine: one per core, at most one per WORKER_MEMORY_GIB of memory."""
    cores = os.cpu_count() or 1
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (AttributeError, OSError, ValueError):  # not a POSIX system: trust the cores
        return cores
    return max(1, min(cores, int(memory // WORKER_MEMORY_GIB)))


def cmd_reproduce(args: argparse.Namespace) -> int:
    from ..report import ARTIFACTS, reproduce

    if args.list:
        rows = [{"name": a.name, "paper": a.paper or "", "notebook": a.notebook or "", "function": a.qualname}
                for a in ARTIFACTS.values()]
        _emit(pl.DataFrame(rows), "table")
        return 0
    from ..report.settings import FULL, QUICK

    settings = (QUICK if args.quick else FULL).with_backend(args.backend)
    if args.allow_errors:
        settings = replace(settings, allow_errors=True)
    if args.workers is not None or settings.backend == "offline":
        workers = machine_workers() if args.workers is None else args.workers
        if workers < 1:
            raise SystemExit(f"filegram reproduce: --workers must be at least 1, got {workers}")
        settings = replace(settings, workers=workers)  # not in any step's key: rows do not depend on it
    if args.check:
        from ..report.check import check, format_check

        reference = Path(args.out or ("figures/quick" if args.quick else "figures"))
        result = check(reference, only=args.only or None, settings=settings, corpus=args.corpus,
                       images=not args.no_images)
        print(format_check(result, reference))
        return 1 if result.differences else 0
    out = args.out or ("build/quick" if args.quick else "figures")
    if args.plan:
        from ..report.plan import format_plan
        from ..report.reproduce import plan

        print(format_plan(plan(out, only=args.only or None, corpus=args.corpus, images=not args.no_images,
                               settings=settings, force=args.force), Path(out)))
        return 0
    written = reproduce(out, only=args.only or None, corpus=args.corpus, images=not args.no_images,
                        settings=settings, force=args.force)
    print(f"wrote {len(written)} files to {out}/ (steps and timings: {out}/MANIFEST.json)")
    page = Path(out).resolve().parent / "docs" / "results.md"
    if Path(out).name == "figures" and (page.parent.parent / "mkdocs.yml").is_file():  # the repository's figures/
        from ..report.results_page import write_results_page

        try:
            print(f"docs page of the results: {write_results_page(out, page)}")
        except FileNotFoundError as exc:
            print(f"note: {page} not rewritten: {exc}", file=sys.stderr)
    return 0


def _load(args: argparse.Namespace):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the quarantine is printed below instead
        return load_trajectories(args.path, profiles=args.profiles, tasks=args.tasks, quarantine=args.quarantine,
                                 check_media=not args.no_media)


def _print_quarantine(trajs) -> None:
    for q in trajs.quarantine:
        where = ": ".join(x for x in (q.file, None if q.event_index is None else f"event {q.event_index}",
                                      None if q.field is None else f"field '{q.field}'") if x)
        print(f"  quarantined {where}: {q.reason}", file=sys.stderr)


def cmd_validate(args: argparse.Namespace) -> int:
    trajs = _load(args)
    counts = Counter(e.event_type for t in trajs for e in t.events)
    print(f"{len(trajs)} trajectories, {sum(counts.values())} valid events")
    for event_type, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"  {event_type:<22} {n:>8}")
    _print_quarantine(trajs)
    if trajs.quarantine:
        print(f"{len(trajs.quarantine)} invalid events/files quarantined", file=sys.stderr)
        return 1
    return 0


def cmd_clean(args: argparse.Namespace) -> int:
    trajs = _load(args)
    cleaned, report = clean(trajs)
    signal = save_trajectories(cleaned, args.out)
    _print_quarantine(trajs)
    print(report)
    print(f"wrote {len(cleaned)} cleaned trajectories to {signal}/")
    return 1 if trajs.quarantine else 0


def cmd_fingerprint(args: argparse.Namespace) -> int:
    from ..behaviour.fingerprint import FEATURES, fingerprints
    from ..util import atomic

    frame = fingerprints(args.path).select("trajectory_id", *FEATURES)  # the store where current, else events.json
    if args.out is None:
        _emit(frame, args.format)
        return 0
    from ..report import to_markdown

    atomic.write_text(args.out, frame.write_csv() if args.format == "csv" else to_markdown(frame))
    print(f"wrote the fingerprints of {frame.height} trajectories to {args.out}")
    return 0


def cmd_drift(args: argparse.Namespace) -> int:
    from ..behaviour.drift import drift

    if args.warmup is not None and args.reference != "past":
        raise SystemExit("filegram drift: --warmup is the training sessions of --reference past")
    if args.false_alarm is not None and (args.detector != "habit" or args.reference != "past"):
        raise SystemExit("filegram drift: --false-alarm is the habit model's rule against the user's past: add "
                         "--detector habit --reference past")
    if (args.model or args.alpha is not None) and args.detector == "fingerprint":
        raise SystemExit("filegram drift: --model and --alpha choose the habit model: add --detector habit (or both)")
    if args.score is not None and args.reference != "past":
        raise SystemExit("filegram drift: --score is how --reference past reads a session: add --reference past")
    confirmed = None
    if args.confirmed is not None:
        if args.reference != "past":
            raise SystemExit("filegram drift: --confirmed sessions are learnt by --reference past: add it")
        try:
            text = args.confirmed.read_text(encoding="utf-8")
        except OSError as err:
            raise SystemExit(f"filegram drift: --confirmed {args.confirmed}: {err.strerror or err}") from err
        confirmed = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    try:
        frame = drift(args.path, tau=args.tau, false_alarm=args.false_alarm, detector=args.detector,
                      reference=args.reference, warmup=args.warmup, model=args.model, alpha=args.alpha,
                      score=args.score, confirmed=confirmed)
    except ValueError as err:
        raise SystemExit(f"filegram drift: {err}") from err
    if args.flagged:
        frame = frame.filter(pl.col("flagged"))
    frame = frame.with_columns(pl.col("shifted_features").list.join(", "))
    _emit(frame.drop("rationale") if args.format == "table" else frame, args.format)
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from ..memory.filegramos.calibration import save_calibration
    from .calibrate import calibrate

    calibration = calibrate(args.corpus, personas=args.personas, seed=args.seed, workers=args.workers,
                            tasks=args.tasks)
    path = save_calibration(calibration, args.out)
    accuracy = ", ".join(f"{d} {a:.2f}" for d, a in calibration.meta["cv_accuracy"].items())
    print(f"wrote {path}: {calibration.meta['personas']} personas, cross-validated accuracy {accuracy}")
    return 0


def cmd_corpus(args: argparse.Namespace) -> int:
    from ..engine import build_corpus, count_events, format_comparison

    if args.stats is not None:
        counts, n = count_events(args.stats)
        if not n:
            print(f"error: no trajectories under {args.stats}", file=sys.stderr)
            return 2
        print(format_comparison(counts, n))
        return 0
    if args.setting == "multimodal":
        return _multimodal_corpus(args)
    if args.setting == "visual":
        return _visual_corpus(args)
    if args.out is None and not args.dry_run:
        print("error: give --out DIR to build a corpus or --stats DIR to compare one with the paper", file=sys.stderr)
        return 2
    if args.source is not None:
        print("error: --from names the text corpus of --setting multimodal or visual", file=sys.stderr)
        return 2
    if args.sample and args.profiles:
        print("error: give --profiles or --sample, not both", file=sys.stderr)
        return 2
    if args.agent == "llm" and args.style_pack != "A":
        print(f"error: --style-pack {args.style_pack} words the offline agent's outputs; the llm agent writes its own "
              "words: drop --style-pack or use --agent offline", file=sys.stderr)
        return 2
    personas = sample_profiles(args.sample, seed=args.seed) if args.sample else args.profiles
    if args.dry_run:
        from ..engine.corpus import dry_run_corpus

        if args.agent != "llm":
            print("error: --dry-run estimates an LLM agent's bill: add --agent llm --backend NAME", file=sys.stderr)
            return 2
        print(dry_run_corpus(backend=args.backend, seed=args.seed, profiles=personas, tasks=args.tasks).report())
        return 0
    report = build_corpus(args.out, seed=args.seed, profiles=personas, tasks=args.tasks, workers=args.workers,
                          agent=args.agent, backend=args.backend, style_pack=args.style_pack, executor=args.executor,
                          address=args.address)
    print(report)
    return 0


def _multimodal_corpus(args: argparse.Namespace) -> int:
    from ..multimodal import MultimodalError, build_multimodal, default_dir

    if args.source is None:
        from ..report.corpus_source import default_corpus

        args.source = default_corpus()
    try:
        print(build_multimodal(args.source, args.out or default_dir(args.source), seed=args.seed,
                               workers=args.workers))
    except MultimodalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _visual_corpus(args: argparse.Namespace) -> int:
    from ..bench.visual_grounding import build_visual_setting, visual_grounding_items

    if args.source is None:
        from ..report.corpus_source import default_corpus

        args.source = default_corpus()
    out = args.out or args.source.with_name(f"{args.source.name}_visual")
    items = visual_grounding_items(args.source, seed=args.seed)
    report = build_visual_setting(args.source, out, items, workers=args.workers)
    print(f"{out}: the first halves of {report['sessions']} sessions (Visual Grounding, item seed {args.seed}) "
          f"replayed as screen recordings and read back by OCR: {report['exact']} of {report['frames']} frames "
          f"captioned exactly, {report['captions_dropped']} unusable")
    if args.backend == "offline":
        return 0
    from ..bench.keyed_captions import recaption_visual_setting
    from ..llm import get_backend

    keyed = out.with_name(f"{out.name}_{args.backend}")
    try:
        report = recaption_visual_setting(out, keyed, get_backend(args.backend))
    except ValueError as exc:  # a backend without video input, a reply that is not a caption list
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{keyed}: the same sessions captioned by {args.backend}: {report['exact']} of {report['frames']} frames "
          f"exactly as the replay's alignment, {report['captions_dropped']} unusable")
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from ..llm.cache import ResponseCache, cache_dir

    cache = ResponseCache(args.dir or cache_dir())
    if args.action == "verify":
        broken = cache.verify()
        for path, reason in broken:
            print(f"  {path}: {reason}", file=sys.stderr)
        print(f"{cache.root}: {cache.stats()['entries']} entries, {len(broken)} broken")
        return 1 if broken else 0
    if args.action == "prune":
        if args.older_than is None:
            print("error: give --older-than DAYS (entries written longer ago are removed)", file=sys.stderr)
            return 2
        removed = cache.prune(older_than_days=args.older_than, dry_run=args.dry_run)
        for path in removed:
            print(f"  {path}")
        print(f"{'would remove' if args.dry_run else 'removed'} {len(removed)} entries from {cache.root}")
        return 0
    stats = cache.stats()
    print(f"{cache.root}: {stats['entries']} entries, {stats['bytes']} bytes")
    rows = Counter((str(e.meta.get("task", "?")), str(e.meta.get("backend", "?"))) for e in cache.entries())
    if rows:
        _emit(pl.DataFrame([{"task": t, "backend": b, "entries": n} for (t, b), n in sorted(rows.items())]), "table")
    if sum(rows.values()) < stats["entries"]:
        print(f"{stats['entries'] - sum(rows.values())} entries are unreadable: run `filegram cache verify`")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="filegram", description=__doc__)
    parser.add_argument("--version", action="version", version=f"filegram_kit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    fmt = argparse.ArgumentParser(add_help=False)
    fmt.add_argument("--format", choices=("table", "csv", "json"), default="table")

    p = sub.add_parser("profiles", parents=[fmt], help="the 20 paper personas, or --sample N new ones")
    p.add_argument("--sample", type=int, metavar="N", help="sample N synthetic personas instead")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--attributes", action="store_true", help="add the 16 behavioral attribute tiers")
    p.set_defaults(func=cmd_profiles)

    p = sub.add_parser("tasks", parents=[fmt], help="the 32 tasks (paper Table 10)")
    p.add_argument("--prompts", choices=("en", "zh"), help="add the task prompt in this language")
    p.set_defaults(func=cmd_tasks)

    p = sub.add_parser("perturbations", parents=[fmt], help="the perturbation schedule (spec 10.4)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_perturbations)

    p = sub.add_parser("reproduce", help="regenerate the paper's tables and figures")
    p.add_argument("--out", help="output folder (default: figures; with --quick: build/quick)")
    p.add_argument("--only", nargs="*", metavar="NAME", help="only these artifacts (see --list)")
    p.add_argument("--quick", action="store_true", help="the documented quick subset (4 personas x 32 tasks, item "
                   "seed 0's first 15 items per sub-task, 3 methods, Track 4 on one persona, KnowAct on two; about 2.5 "
                   "min on 2 cores) into build/quick, never over figures/")
    p.add_argument("--backend", default="offline", help="backend that answers and builds the memories: offline "
                   "(default), gemini, openai_compat (needs its key; rows and labels name it)")
    p.add_argument("--force", action="store_true", help="rerun every step, even those whose inputs are unchanged")
    p.add_argument("--list", action="store_true", help="list the artifacts and where they come from")
    p.add_argument("--plan", action="store_true", help="print which steps a run would run, why (the files whose "
                   "code changed, or the inputs) and their seconds last time; runs nothing, builds no corpus")
    p.add_argument("--check", action="store_true", help="recompute from scratch in a temporary folder (corpus, "
                   "items and rows too, unless --corpus is given) and compare byte for byte with --out (default: "
                   "figures, with --quick: figures/quick), writing nothing there; prints each file that differs with "
                   "its step and exits 1 if any does (MANIFEST.json and, with --no-images, PNGs are not compared)")
    p.add_argument("--corpus", type=Path, metavar="DIR", help="compute trace-based artifacts from this corpus "
                   "(default: data/corpus, built on first use)")
    p.add_argument("--no-images", action="store_true", help="skip the PNG export of figures (needs no browser)")
    p.add_argument("--allow-errors", action="store_true", help="let a bench step whose result rows hold errors "
                   "succeed (they count as wrong answers); by default it fails naming the method, item and error")
    p.add_argument("--workers", type=int, metavar="N", help="parallel processes of the offline bench steps "
                   "(default: one per core, at most one per 2.5 GiB of memory; with a keyed backend, threads: 2); "
                   "the rows and every artifact are the same whatever N")
    p.set_defaults(func=cmd_reproduce)

    p = sub.add_parser("corpus", help="build the trace corpus offline, or compare one with paper Table 5")
    p.add_argument("--out", type=Path, help="build (or resume building) the corpus in this folder")
    p.add_argument("--stats", type=Path, metavar="DIR", help="print event counts of DIR against paper Table 5")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profiles", nargs="+", metavar="ID", help="only these personas (e.g. p1 p7)")
    p.add_argument("--sample", type=int, metavar="N", help="N synthetic personas (sample_profiles, same --seed) "
                   "instead of the paper's 20")
    p.add_argument("--tasks", nargs="+", metavar="ID", help="only these tasks (e.g. T-05 t12)")
    p.add_argument("--workers", type=int, help="parallel processes (default: all cores)")
    p.add_argument("--agent", choices=("offline", "llm"), default="offline",
                   help="the persona policy agent (default) or an LLM driving the same tools")
    p.add_argument("--backend", default="offline", help="backend of the llm agent: offline, gemini, openai_compat; "
                   "with --setting visual, a backend that takes video (gemini) also captions the replays, into "
                   "DIR_visual_<backend> beside the offline (OCR) setting")
    p.add_argument("--style-pack", choices=tuple(PACKS), default="A", help="the offline agent's wording: A (default, "
                   "the original) or B (same behaviour and event sequence, other headings, link words, file and "
                   "folder names), to test that a method reads behaviour, not wording; one pack per --out folder")
    p.add_argument("--dry-run", action="store_true", help="with --agent llm: print the calls, tokens and cost the "
                   "backend would be sent, spending nothing")
    p.add_argument("--setting", choices=("text", "multimodal", "visual"), default="text", help="text (default): the "
                   "engine's Markdown outputs; multimodal: the same event logs with every text output rendered as "
                   "PDF, DOCX, PPTX, XLSX, PNG and MP3 sections (from --from, rendered with --seed); visual: the "
                   "first halves of the Visual Grounding sessions (item seed --seed) as screen recordings, "
                   "captioned back into trajectories")
    p.add_argument("--from", dest="source", type=Path, metavar="DIR", help="with --setting multimodal or visual: the "
                   "text corpus (default: data/corpus, built on first use; --out defaults to DIR_multimodal or "
                   "DIR_visual)")
    add_executor_arguments(p, what="trajectories (one per unit; each lands atomically)")
    p.set_defaults(func=cmd_corpus)

    p = sub.add_parser("fingerprint", help="the 17-D procedural fingerprint (paper Table 6) of each trajectory")
    p.add_argument("path", type=Path, help="corpus root, its signal/ folder, or one trajectory folder")
    p.add_argument("--format", choices=("table", "csv"), default="table")
    p.add_argument("--out", type=Path, metavar="FILE", help="write to FILE instead of the terminal")
    p.set_defaults(func=cmd_fingerprint)

    p = sub.add_parser("drift", parents=[fmt], help="per-session deviation from each user's own habits, flags and "
                       "the anomaly judge's labels (paper Eq. 1)")
    p.add_argument("path", type=Path, help="corpus root, its signal/ folder, or one trajectory folder")
    rule = p.add_mutually_exclusive_group()
    rule.add_argument("--tau", type=float, help="flag above mean + tau * sd of the user's deviations (default 1.5)")
    rule.add_argument("--false-alarm", type=float, metavar="RATE", help="flag at this rate of the user's usual "
                      "sessions, e.g. 0.01 (--detector habit --reference past; a conformal threshold of the past)")
    p.add_argument("--flagged", action="store_true", help="only the flagged sessions")
    p.add_argument("--detector", choices=("fingerprint", "habit", "both"), default="fingerprint",
                   help="the 17-D fingerprint (default), the habit model of action sequences, or either")
    p.add_argument("--reference", choices=("others", "past"), default="others", help="score each session against "
                   "the user's other sessions (default) or only the earlier ones, learning only from sessions it "
                   "did not flag (habit detector)")
    p.add_argument("--warmup", type=int, metavar="N", help="--reference past: the first N sessions only train "
                   "(default 5)")
    p.add_argument("--model", choices=MODELS, help="the habit detector's model: markov (default; order 1 over "
                   "action tokens), multinomial (order 0) or naive_bayes (command names, additive smoothing)")
    p.add_argument("--alpha", type=float, help="--model naive_bayes: its additive smoothing (default 0.01)")
    p.add_argument("--score", choices=SCORES, help="--reference past: one_class (the user's own past) or two_class "
                   "(against the other users' warm-ups too); default two_class with --false-alarm and several users")
    p.add_argument("--confirmed", type=Path, metavar="FILE", help="--reference past: the alarms were reviewed; "
                   "FILE lists the trajectory ids that were yours, one per line (# comments), learnt from")
    p.set_defaults(func=cmd_drift)

    p = sub.add_parser("calibrate", help="refit FileGramOS's L/M/R readings on synthetic personas (not the 20)")
    p.add_argument("--personas", type=int, default=48, help="calibration personas to draw (default 48)")
    p.add_argument("--seed", type=int, default=1001, help="their seed (default 1001)")
    p.add_argument("--corpus", type=Path, default=Path("data/calibration_corpus"), help="where their trajectories "
                   "are built (resumable; default data/calibration_corpus)")
    p.add_argument("--tasks", nargs="+", metavar="ID", help="only these tasks (default: all 32)")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--out", type=Path, default=None, help="calibration file (default: the packaged one)")
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("cache", help="inspect, check or prune the LLM response cache (default: data/cache)")
    p.add_argument("action", choices=("stats", "verify", "prune"), help="entries by task and backend; list broken "
                   "entries (exit 1 if any); remove old entries")
    p.add_argument("--dir", type=Path, metavar="DIR", help="cache folder (default: $FILEGRAM_CACHE or data/cache)")
    p.add_argument("--older-than", type=float, metavar="DAYS", help="prune: remove entries written before this")
    p.add_argument("--dry-run", action="store_true", help="prune: list what would be removed, remove nothing")
    p.set_defaults(func=cmd_cache)

    for name, func, text in (("validate", cmd_validate, "check trajectories against the event schema"),
                             ("clean", cmd_clean, "drop metadata events, strip generator fields, anonymise paths")):
        p = sub.add_parser(name, help=text)
        p.add_argument("path", type=Path, help="corpus root, its signal/ folder, or one trajectory folder")
        p.add_argument("--quarantine", action="store_true", help="set bad events aside instead of stopping")
        p.add_argument("--no-media", action="store_true", help="do not check that referenced blobs/diffs exist")
        p.add_argument("--profiles", nargs="+", metavar="ID", help="only these personas")
        p.add_argument("--tasks", nargs="+", metavar="ID", help="only these tasks (e.g. T-05 t12)")
        if name == "clean":
            p.add_argument("--out", type=Path, required=True, help="write cleaned trajectories under OUT/signal/")
        p.set_defaults(func=func)
    add_bench(sub, fmt)
    add_eval(sub, fmt)
    add_record(sub, fmt)
    add_knowact(sub, fmt)
    add_store(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (TraceError, KeyError, ValueError, CorpusError, ExecutorError, FileNotFoundError,
            NotADirectoryError, Locked) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc  # KeyError's str() adds quotes
        print(f"error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
