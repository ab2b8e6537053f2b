"""A paper-scale plan on paper: what an LLM-engine run of many personas would cost, from measured per-unit bills.

    python benchmarks/plan.py [--target gemini] [--personas 10000] [--sample 2] [--workers 8,32,128]
                              [--seconds-per-call 4] [--rpm 2000] [--methods no_context,naive_rag,filegramos]

Nothing is spent: the dry-run backend (llm/dryrun.py) runs the pipeline with offline answers while it
renders and counts every prompt the target model would get, priced by the project's price table.
Measured here on --sample sampled personas (seed 0) x the 32 tasks:
- generate: the LLM agent doing every task (`dry_run_corpus`): calls and tokens per trajectory;
- ingest + answer: `evaluate` with the dry-run backend as memory and reader on those personas' items
  (item seed 0, every sub-task of tracks 1-3): calls and tokens per item (a memory is built per method and
  item input set, so ingest grows with the items too), no response cache (an upper bound).
Scaled to --personas x 32 tasks, with items per persona as the paper's (4,653 items / 20 personas).
Wall clock: calls / (workers x 60 / seconds-per-call), but never faster than the --rpm limit that every
worker shares (FILEGRAM_RPM, util/ratelimit.py); seconds-per-call is an assumption, not a measurement
(no network here). Writes the "Paper-scale plan" section of BENCHMARKS.md and prints it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAPER_ITEMS_PER_PERSONA = 4653 / 20


def _generate_bill(target: str, personas: list) -> tuple[dict, int]:
    from filegram_kit.engine.corpus import dry_run_corpus
    from filegram_kit.traces.tasks import load_tasks

    backend = dry_run_corpus(backend=target, profiles=personas, tasks=list(load_tasks()), progress=True)
    return backend.usage.counts.get("generate", {}), len(personas) * len(load_tasks())


def _evaluation_bill(target: str, personas: list, methods: list[str]) -> tuple[dict, int, str]:
    from filegram_kit.bench.generate import build_items
    from filegram_kit.bench.harness import evaluate
    from filegram_kit.engine import build_corpus
    from filegram_kit.llm import get_backend

    with tempfile.TemporaryDirectory(prefix="plan-") as tmp:
        corpus = Path(tmp) / "corpus"
        build_corpus(corpus, profiles=personas, workers=2, progress=False)
        items = build_items(corpus, seed=0)
        backend = get_backend("dryrun", target=target)
        evaluate(items, corpus, methods, backend=backend, out=Path(tmp) / "run", workers=1, progress=True)
    return backend.usage.counts, len(items), backend.model


def _row(stage: str, calls: float, tokens_in: float, tokens_out: float, prices: dict, workers: list[int],
         seconds_per_call: float, rpm: float) -> dict:
    cost = (tokens_in * prices.get("input", 0) + tokens_out * prices.get("output", 0)) / 1e6
    row = {"stage": stage, "calls": f"{calls:,.0f}", "tokens in": f"{tokens_in:,.0f}",
           "tokens out": f"{tokens_out:,.0f}", "US$": f"{cost:,.0f}"}
    for n in workers:
        per_minute = min(n * 60 / seconds_per_call, rpm)
        row[f"days on {n} workers"] = f"{calls / per_minute / 60 / 24:,.1f}"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="gemini")
    parser.add_argument("--personas", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=2, help="personas measured (x 32 tasks)")
    parser.add_argument("--workers", default="8,32,128")
    parser.add_argument("--seconds-per-call", type=float, default=4.0)
    parser.add_argument("--rpm", type=float, default=2000.0, help="the provider's requests per minute (shared)")
    parser.add_argument("--methods", default="no_context,naive_rag,filegramos")
    args = parser.parse_args()

    import polars as pl

    from filegram_kit.llm.config import price_for
    from filegram_kit.report import to_markdown
    from filegram_kit.traces.profiles import sample_profiles

    personas = sample_profiles(args.sample, seed=0)
    methods = [m for m in args.methods.split(",") if m]
    workers = [int(n) for n in args.workers.split(",")]
    generate, trajectories = _generate_bill(args.target, personas)
    evaluation, items, model = _evaluation_bill(args.target, personas, methods)
    prices = price_for(model)
    scale = args.personas / args.sample
    trajectories_total = args.personas * 32
    items_total = args.personas * PAPER_ITEMS_PER_PERSONA
    rows = [_row(f"generate {trajectories_total:,} trajectories", generate["calls"] * scale,
                 generate["input_tokens"] * scale, generate["output_tokens"] * scale, prices, workers,
                 args.seconds_per_call, args.rpm)]
    ingest = evaluation.get("ingest", {})
    per_item = items_total / items  # a memory is built per (method, item input set): ingest grows with the items
    rows.append(_row(f"ingest: {len(methods)} methods x the items' input sets", ingest.get("calls", 0) * per_item,
                     ingest.get("input_tokens", 0) * per_item, ingest.get("output_tokens", 0) * per_item, prices,
                     workers, args.seconds_per_call, args.rpm))
    answer = {k: sum(evaluation.get(p, {}).get(k, 0) for p in ("query", "judge"))
              for k in ("calls", "input_tokens", "output_tokens")}
    rows.append(_row(f"answer + judge: {len(methods)} methods x {items_total:,.0f} items", answer["calls"] * per_item,
                     answer["input_tokens"] * per_item, answer["output_tokens"] * per_item, prices, workers,
                     args.seconds_per_call, args.rpm))
    totals = {k: sum(float(r[k].replace(",", "")) for r in rows) for k in ("calls", "tokens in", "tokens out")}
    rows.append(_row("total", totals["calls"], totals["tokens in"], totals["tokens out"], prices, workers,
                     args.seconds_per_call, args.rpm))
    text = ("## Paper-scale plan\n\n"
            f"`python benchmarks/plan.py --personas {args.personas} --sample {args.sample}`: an LLM-engine run of "
            f"{args.personas:,} personas x 32 tasks on {args.target} ({model}; ${prices.get('input', 0):g} / "
            f"${prices.get('output', 0):g} per 1M tokens in / out), priced by the dry-run backend from what "
            f"{args.sample} sampled personas cost: {trajectories} trajectories took {generate['calls']:,} agent "
            f"calls ({generate['calls'] / trajectories:.1f} per trajectory, "
            f"{generate['input_tokens'] / trajectories:,.0f} tokens in and "
            f"{generate['output_tokens'] / trajectories:,.0f} out each); their {items:,} items cost "
            f"{answer['calls'] / max(items, 1):.1f} reader and judge calls "
            f"per item over {len(methods)} methods ({', '.join(methods)}). Items per persona as in the paper "
            f"({PAPER_ITEMS_PER_PERSONA:.0f}). Wall clock assumes {args.seconds_per_call:g} s per call and a shared "
            f"limit of {args.rpm:,.0f} requests a minute (FILEGRAM_RPM): past "
            f"{args.rpm * args.seconds_per_call / 60:,.0f} workers the limit, not the cluster, sets the pace. A warm "
            "response cache makes a rerun free.\n\n"
            + to_markdown(pl.DataFrame(rows)))
    sys.path.insert(0, str(HERE))
    from markdown_section import write_section

    write_section(HERE.parent / "BENCHMARKS.md", "## Paper-scale plan", text)
    print(text)


if __name__ == "__main__":
    main()
