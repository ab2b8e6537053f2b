"""`filegram knowact`: Know / Act / Utilization and the failure attribution of memory methods on a corpus."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..knowact.split import ACT_RUNS
from ..util.executors import add_executor_arguments


def corpus_persona_ids(corpus: Path, asked: list[str]) -> list[str]:
    """The corpus's persona ids for `asked`, where a short id names one of them ("p1" -> "p1_methodical", as
    `filegram corpus --profiles p1` takes it); ids the corpus lacks pass through, for `run_knowact` to refuse."""
    from ..traces.profiles import load_profiles

    path = corpus / "profiles.json"
    known = list(load_profiles(path)) if path.is_file() else []
    resolved = []
    for pid in (p.strip() for p in asked if p.strip()):
        matches = [k for k in known if k.split("_")[0] == pid]
        resolved.append(matches[0] if pid not in known and len(matches) == 1 else pid)
    return resolved


def cmd_knowact(args: argparse.Namespace) -> int:
    from ..knowact import DEFAULT_METHODS, run_knowact
    from ..report.knowact_views import format_report

    if not args.corpus.is_dir():
        raise FileNotFoundError(f"{args.corpus}: no such corpus folder (build one with `filegram corpus --out DIR`)")
    methods = [m.strip() for m in args.methods.split(",") if m.strip()] if args.methods else list(DEFAULT_METHODS)
    personas = corpus_persona_ids(args.corpus, args.personas.split(",")) if args.personas else None
    params = json.loads(args.backend_params) if args.backend_params else None
    cases = run_knowact(args.corpus, args.out, methods=methods, backend=args.backend, backend_params=params,
                        agent=args.agent, seed=args.seed, personas=personas, workers=args.workers,
                        executor=args.executor, address=args.address, act_runs=args.act_runs)
    print(format_report(cases), end="")
    print(f"{cases.height} cases in {args.out / 'cases.parquet'}; act runs under {args.out / 'act'}")
    if args.agent == "llm":
        from ..knowact.act import act_errors

        errors = act_errors(args.out)
        print(f"LLM act runs that ended on a model error: {sum(errors.values())}"
              + (f" ({', '.join(f'{k} {n}' for k, n in errors.items())}; each run's summary.json holds its error)"
                 if errors else ""))
    return 0


def add_knowact(sub, fmt: argparse.ArgumentParser) -> None:
    p = sub.add_parser("knowact", help="does memory that knows a habit act on it? Know / Act / Utilization per "
                       "method, with oracle failure attribution (resumable; OUT/cases.parquet)")
    p.add_argument("--corpus", type=Path, required=True, metavar="DIR", help="corpus folder (`filegram corpus`)")
    p.add_argument("--methods", metavar="LIST", help="comma-separated memory names (default: no_context, "
                   "full_context, naive_rag, filegramos, eager_summary, mem0, zep, memos)")
    p.add_argument("--backend", default="offline", help="reader / preference / memory backend: offline, gemini, "
                   "openai_compat ...")
    p.add_argument("--backend-params", metavar="JSON", help='backend parameters as JSON, e.g. \'{"model": "x"}\'')
    p.add_argument("--agent", choices=("offline", "llm"), default="offline", help="the acting agent: the offline "
                   "policy on inferred tiers, or the LLM agent with the context in its prompt (needs a model backend)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder (rerun to resume)")
    p.add_argument("--personas", metavar="LIST",
                   help="comma-separated persona ids, or short ids as p1 (default: all in the corpus)")
    p.add_argument("--seed", type=int, default=0, help="split, question and act seed (default 0)")
    p.add_argument("--act-runs", type=int, default=ACT_RUNS, metavar="N",
                   help=f"act runs per dimension and condition, read together (default {ACT_RUNS}: 3 act tasks x 3 "
                        "seeds); fewer cost fewer agent runs (an LLM agent's run takes minutes on a local model) and "
                        "read each dimension with less power; at least one run per act task")
    p.add_argument("--workers", type=int, default=2, help="parallel persona workers (1 = serial, for debugging)")
    add_executor_arguments(p, what="persona units")
    p.set_defaults(func=cmd_knowact)
