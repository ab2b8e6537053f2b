"""`filegram bench build|audit|show|summary`, `filegram eval` and `filegram results`: FileGramBench from the shell."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..util.executors import add_executor_arguments
from .output import emit as _emit


def _print_audit(report) -> int:
    """Print the audit table; 1 (and the failing sub-tasks on stderr) when a sub-task fails."""
    _emit(report.table.drop("reasons"), "table")
    for sub_track, sub_class, why in report.flagged_classes():
        print(f"note: sub-class {sub_class} of {sub_track}: {why}; only whole sub-tasks gate, but read its scores "
              "with this in mind")
    if report.passed:
        print("audit passed: no sub-task is answerable from its options, its key position or its sessions' "
              "tasks, and the ideal observer of the traces agrees with every key it checks")
        return 0
    for sub_track, why in report.reasons().items():
        print(f"audit FAILED: {sub_track}: {why}", file=sys.stderr)
    return 1


def cmd_bench_build(args: argparse.Namespace) -> int:
    import polars as pl

    from ..bench.audit import audit_per_seed
    from ..bench.generate import build_items_with_report
    from ..bench.ground_truth import corpus_facts
    from ..bench.items import paper_comparison, write_items

    if not args.corpus.is_dir():
        raise FileNotFoundError(f"{args.corpus}: no such corpus folder (build one with `filegram corpus --out DIR`)")
    items, reports = [], []
    for seed in args.seeds or [args.seed]:
        built, report = build_items_with_report(args.corpus, seed=seed)
        items += built
        reports += [{"seed": seed, **r.__dict__} for r in report]
    path = write_items(items, args.out)
    track4 = _track4(args) if args.track4 else []
    table = paper_comparison(items + track4)
    _emit(table.select("track", "abbr", "sub_track", "ours", "paper_count", "note"), "table")
    print("\ndrafts per sub-task: redrawn = the evidence did not support the key (ideal observer or oracle)")
    _emit(pl.DataFrame(reports), "table")
    print(f"wrote {len(items)} items to {path} (paper: {table['paper_count'].sum():,} over 4 tracks)")
    if track4:
        print(f"wrote {len(track4)} Track 4 items to {args.track4}: answer File Grounding from the multimodal "
              "setting (`filegram corpus --setting multimodal`) and Visual Grounding from the visual one "
              "(`filegram corpus --setting visual`)")
    if args.no_audit:
        return 0
    print("\naudit (choices-only adversary, key position, task prior, ideal observer):")
    return _print_audit(audit_per_seed(items + [i for i in track4 if i.is_mcq], corpus_facts(args.corpus)))


def _track4(args: argparse.Namespace) -> list:
    """File Grounding and Visual Grounding items of every seed, written to --track4 (kept apart from tracks 1-3:
    they are answered from other settings of the corpus)."""
    from ..bench.file_grounding import build_file_grounding
    from ..bench.items import write_items
    from ..bench.visual_grounding import visual_grounding_items

    items = []
    for seed in args.seeds or [args.seed]:
        items += build_file_grounding(args.corpus, seed=seed)[0] + visual_grounding_items(args.corpus, seed=seed)
    write_items(items, args.track4)
    return items


def cmd_bench_audit(args: argparse.Namespace) -> int:
    from ..bench.audit import audit_per_seed
    from ..bench.ground_truth import corpus_facts
    from ..bench.items import load_items

    facts = None
    if args.corpus is not None:
        if not args.corpus.is_dir():
            raise FileNotFoundError(f"{args.corpus}: no such corpus folder")
        facts = corpus_facts(args.corpus)
    else:
        print("(no --corpus: the observer-agreement and task-prior checks are skipped)")
    return _print_audit(audit_per_seed(load_items(args.file), facts))


def _show_item(item) -> str:
    from ..llm.tasks import options_text

    inputs = ", ".join(item.input_trajectories[:3]) + (f", ... ({len(item.input_trajectories)} in all)"
                                                       if len(item.input_trajectories) > 3 else "")
    where = " / ".join(x for x in (item.track, item.sub_track, item.sub_class) if x)
    head = [f"[{item.question_id}] {where}",
            f"channel {item.channel or '-'} | profile {item.profile_id or '-'} | inputs: {inputs or '-'}", "",
            item.question.strip(), ""]
    answer = ([options_text(list(item.choices)), f"correct: {item.correct}"] if item.is_mcq
              else [f"reference answer: {item.correct}"])
    return "\n".join(head + answer) + "\n"


def cmd_bench_show(args: argparse.Namespace) -> int:
    from ..bench.items import load_items

    items = load_items(args.file)
    if args.sub_track:
        present = sorted({i.sub_track for i in items})
        items = [i for i in items if i.sub_track == args.sub_track]
        if not items:
            print(f"error: no items with sub_track {args.sub_track!r}; {args.file} has {', '.join(present)}",
                  file=sys.stderr)
            return 2
    if args.id:
        items = [i for i in items if i.question_id in set(args.id)]
        if not items:
            print(f"error: no item with id {', '.join(args.id)} in {args.file}", file=sys.stderr)
            return 2
    shown = items[:args.limit] if args.limit else items
    if args.explain:
        if args.corpus is None:
            print("error: --explain builds the memory from the item's sessions: give --corpus DIR", file=sys.stderr)
            return 2
        print("\n".join(_show_item(i) + _explain_item(i, args.method, args.corpus) for i in shown), end="")
    else:
        print("\n".join(_show_item(i) for i in shown), end="")
    if len(shown) < len(items):
        print(f"({len(items) - len(shown)} more; raise --limit)")
    return 0


def _explain_item(item, method: str, corpus: Path) -> str:
    """What the shared offline reader made of `method`'s context for the item: per option, its score, the parts of
    the score and the context text that supported it."""
    from ..bench.inputs import TrajectoryStore, materialise
    from ..bench.reader import answer
    from ..llm import get_backend
    from ..llm.algorithms.lexical_reader import explain_options
    from ..llm.tasks import LETTERS
    from ..memory import get_memory

    backend = get_backend("offline")
    memory = get_memory(method).ingest(materialise(item, TrajectoryStore(corpus)), backend=backend)
    context = memory.retrieve(item.question, backend=backend)
    if not item.is_mcq:
        reply = answer(item, context, backend=backend)
        return f"\n{method} ({context.tokens} context tokens) answers:\n{reply.answer}\nscore {reply.score:.1f}\n"
    reply = answer(item, context, backend=backend)
    lines = [f"\n{method} ({context.tokens} context tokens): the reader picks {reply.answer} "
             f"(credit {reply.score:.2f}; key {item.correct})"]
    for k, row in enumerate(explain_options(item.question, list(item.choices), context.text)):
        parts = ", ".join(f"{name} {value:+.3f}" for name, value in row["parts"].items())
        lines.append(f"  {LETTERS[k]}. score {row['score']:+.3f} ({parts})")
        lines += [f"       | {text[:160]}" for text in row["support"]] or ["       | (nothing in the context)"]
    return "\n".join(lines) + "\n"


def cmd_bench_summary(args: argparse.Namespace) -> int:
    from ..bench.items import load_items, summary
    _emit(summary(load_items(args.file), by=args.by), args.format)
    return 0


def add_bench(sub, fmt: argparse.ArgumentParser) -> None:
    bench = sub.add_parser("bench", help="FileGramBench items: build them from a corpus, show or count a file")
    actions = bench.add_subparsers(dest="bench_command", required=True)
    p = actions.add_parser("build", help="build the QA items of tracks 1-3 from a trace corpus into a parquet file")
    p.add_argument("--corpus", type=Path, required=True, metavar="DIR", help="corpus root (from `filegram corpus`)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="items file to write (.parquet)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seeds", type=int, nargs="+", metavar="S", help="build one item set per seed into one file "
                   "(ids carry the seed; the sets share input sets, so one evaluation ingests each once)")
    p.add_argument("--no-audit", action="store_true", help="skip the validity audit (it exits 1 when a sub-task "
                   "fails)")
    p.add_argument("--track4", type=Path, metavar="FILE", help="also build Track 4 (File Grounding, Visual "
                   "Grounding) into FILE; the audit then covers File Grounding too")
    p.set_defaults(func=cmd_bench_build)

    p = actions.add_parser("audit", help="can the items be answered without the traces? choices-only adversary, "
                           "key position, task prior and observer agreement per sub-task (exit 1 on a failure)")
    p.add_argument("file", type=Path, help="items parquet, the official bank (file or folder) or .jsonl")
    p.add_argument("--corpus", type=Path, metavar="DIR", help="the corpus the items were built from (for the "
                   "observer and task-prior checks)")
    p.set_defaults(func=cmd_bench_audit)

    p = actions.add_parser("show", help="print items readably: question, lettered choices, correct answer")
    p.add_argument("file", type=Path, help="items parquet, the official bank (file or folder) or .jsonl")
    p.add_argument("--sub-track", metavar="NAME", help="only this sub_track (e.g. anomaly_detection)")
    p.add_argument("--limit", type=int, default=5, metavar="N", help="print at most N items (default 5; 0 = all)")
    p.add_argument("--id", nargs="+", metavar="QID", help="only these question ids")
    p.add_argument("--explain", action="store_true", help="build --method's memory from the item's sessions and print "
                   "what the shared offline reader made of its context: per option the score, its parts and the "
                   "context text that supported it")
    p.add_argument("--method", default="filegramos", metavar="NAME", help="memory for --explain (default filegramos)")
    p.add_argument("--corpus", type=Path, metavar="DIR", help="the corpus the items were built from (for --explain)")
    p.set_defaults(func=cmd_bench_show)

    p = actions.add_parser("summary", parents=[fmt], help="items per track / sub_track / channel / options, and "
                           "the share of each answer letter")
    p.add_argument("file", type=Path, help="items parquet, the official bank (file or folder) or .jsonl")
    p.add_argument("--by", nargs="+", default=["track", "sub_track", "channel", "options"],
                   choices=("track", "sub_track", "sub_class", "channel", "options"), help="group by these columns")
    p.set_defaults(func=cmd_bench_summary)


def cmd_eval(args: argparse.Namespace) -> int:
    from ..bench.harness import evaluate
    from ..bench.items import load_items
    from ..bench.score import format_table3, table3

    if not args.corpus.is_dir():
        raise FileNotFoundError(f"{args.corpus}: no such corpus folder (build one with `filegram corpus --out DIR`)")
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    items = load_items(args.items)
    if not _setting_check(items, args.corpus):
        return 2
    frame = evaluate(items, args.corpus, methods, backend=args.backend, out=args.out,
                     seed=args.seed, workers=args.workers, limit=args.limit, retry_errors=args.retry_errors,
                     executor=args.executor, address=args.address)
    print(format_table3(table3(frame)), end="")
    if args.controls != "none":
        from ..bench.controls import CONTROLS, evaluate_controls
        from ..bench.harness import select

        chosen = list(CONTROLS) if args.controls == "all" else [c.strip() for c in args.controls.split(",")]
        users = len({i.profile_id for i in items if i.profile_id})
        if "observer_traces" in chosen and users < 2:  # its readers are fit on the other personas: there are none
            chosen.remove("observer_traces")
            print("note: observer_traces skipped: it reads each persona with models fit on the others, and these "
                  f"items are about {users} persona")
        written = evaluate_controls(select(items, args.limit), args.corpus, out=args.out, controls=chosen,
                                    backend=args.backend, seed=args.seed)
        print(f"controls {', '.join(chosen)}: {written} new rows (see `filegram results {args.out}`)")
    errors = frame["error"].is_not_null().sum()
    print(f"{frame.height} rows ({errors} with errors) in {args.out / 'results.jsonl'}; "
          f"manifest {args.out / 'manifest.json'}")
    return 0


def _setting_check(items: list, corpus: Path) -> bool:
    """Whether the items may be answered from this corpus: Visual Grounding only from a visual setting (any
    other holds each session's second half, the answer); other items from another setting get a note."""
    import json

    from ..bench.track4 import by_setting

    try:
        has = json.loads((corpus / "corpus.json").read_text(encoding="utf-8")).get("setting") or "text"
    except (OSError, ValueError):
        has = "text"
    for setting, group in by_setting(items).items():
        if setting == has:
            continue
        if setting == "visual":
            print(f"error: {len(group)} Visual Grounding items need the visual setting (`filegram corpus --setting "
                  f"visual`); {corpus} is the {has} setting, whose sessions hold the second half the items ask "
                  "for", file=sys.stderr)
            return False
        print(f"note: {len(group)} items are meant for the {setting} setting; answering them from {corpus} (the "
              f"{has} setting)", file=sys.stderr)
    return True


def cmd_results(args: argparse.Namespace) -> int:
    from ..bench.analysis import format_readout, readout, split_controls
    from ..bench.harness import load_results
    from ..bench.score import format_table3, side_by_side, table3

    rows = load_results(args.dir)
    methods, _ = split_controls(rows)
    ours = table3(methods)
    if args.format != "table":
        _emit(table3(rows), args.format)
        return 0
    seeds = sorted(s for s in rows["item_seed"].unique().to_list() if s is not None)
    print(format_readout(readout(rows, n_boot=args.bootstrap), seeds=seeds))
    print(f"Table 3 layout: our rows from {args.dir}, then the paper's printed rows (Gemini 2.5-Flash reader; "
          "its Avg fits no stated formula, ours is the mean of the sub-task columns)\n")
    print(format_table3(side_by_side(ours, paper_label="paper (printed)")), end="")
    return 0


def add_eval(sub, fmt: argparse.ArgumentParser) -> None:
    p = sub.add_parser("eval", help="answer bench items with memory methods; rows stream to OUT/results.jsonl "
                       "(resumable) with OUT/manifest.json")
    p.add_argument("--items", type=Path, required=True, metavar="FILE", help="items parquet (`filegram bench "
                   "build`), the official bank or .jsonl")
    p.add_argument("--corpus", type=Path, required=True, metavar="DIR", help="the corpus the items were built from")
    p.add_argument("--methods", required=True, help="comma-separated memory names, e.g. no_context,filegramos")
    p.add_argument("--backend", default="offline", help="reader/memory backend: offline, gemini, openai_compat ...")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="results folder (rerun to resume)")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N items of each sub-task")
    p.add_argument("--workers", type=int, default=2, help="parallel workers (1 = serial, for debugging)")
    add_executor_arguments(p, default="thread", choices=("thread", "process", "ray"), what="evaluation groups "
                           "(threads for API backends, processes for CPU-bound offline runs: ~1.5x faster on 2 "
                           "cores, ray: a persona per unit on a cluster)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--retry-errors", action="store_true", help="recompute rows that hold an exception error")
    p.add_argument("--controls", default="all", metavar="LIST", help="control rows to add: all (default), none, or "
                   "a comma-separated subset of chance, choices_only, observer_engine, oracle, oracle_context, "
                   "oracle_paraphrased, oracle_paraphrased_b (the three oracle_ contexts are read by the reader: "
                   "with an API backend they cost calls)")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("results", parents=[fmt], help="paper Table 3 from a results folder, with the paper's rows")
    p.add_argument("dir", type=Path, help="results folder of `filegram eval` (or its results.jsonl)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="persona bootstrap replicates for the "
                   "CIs (default 1000)")
    p.set_defaults(func=cmd_results)
