"""A real small model through the bench's LLM paths: the local SmolLM2-135M server (`make local-llm`), a few items of
every sub-track, four methods, then the same run again from the response cache.

    python benchmarks/local_llm.py                  # starts the local server if none runs; over an hour on 2 cores
    python benchmarks/local_llm.py --limit 1 --docs ../docs/backends.md --json local_llm.json
    python benchmarks/local_llm.py --resume         # after a stop: the JSON is written a column at a time

Per sub-track (column) it records what the model did to the pipeline: calls, parse failures (the reply did not
have the asked shape), prompts cut to the context window, context overflows (too long even after the cut),
other error rows, seconds per call, and each method's accuracy beside No Context and chance. A 135M model answers
near chance: the accuracies check the pipeline, they are not results. The rerun must make 0 calls.

The table in docs/backends.md is written by this script from local_llm.json (`--render-only` rewrites it from the
JSON alone), never typed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # markdown_section, also when a test loads this file

from markdown_section import write_marked  # noqa: E402  (benchmarks/, beside this script)

from filegram_kit.util.atomic import write_text  # noqa: E402

METHODS = ("no_context", "full_context", "mem0", "filegramos")
COUNTED = ("calls", "cached", "parse_failures", "context_cuts", "errors", "input_tokens", "output_tokens")
HEADING = "<!-- local-llm-table: written by benchmarks/local_llm.py from benchmarks/local_llm.json -->"
END = "<!-- /local-llm-table -->"


def item_sets(data: Path, seed: int) -> list[tuple[str, list, Path]]:
    """(label, items, corpus) for tracks 1-3, File Grounding and Visual Grounding, each from its own setting."""
    from filegram_kit.bench.file_grounding import build_file_grounding
    from filegram_kit.bench.generate import build_items_with_report
    from filegram_kit.bench.visual_grounding import visual_grounding_items
    from filegram_kit.report.settings import QUICK

    text = data / "corpus_quick"
    sets = [("tracks 1-3", build_items_with_report(text, seed=seed)[0], text)]
    # the quick settings render only QUICK.track4_personas' trajectories: their items, as `reproduce --quick` asks
    if (data / "corpus_quick_multimodal").is_dir():
        sets.append(("File Grounding", QUICK.of_track4(build_file_grounding(text, seed=seed)[0]),
                     data / "corpus_quick_multimodal"))
    if (data / "corpus_quick_visual").is_dir():
        sets.append(("Visual Grounding", QUICK.of_track4(visual_grounding_items(text, seed=seed)),
                     data / "corpus_quick_visual"))
    return sets


def usage(backend) -> dict[str, int]:
    return {key: backend.usage.total(key) for key in COUNTED}


def run(args: argparse.Namespace) -> dict:
    import os

    from filegram_kit.bench.controls import evaluate_controls
    from filegram_kit.bench.harness import evaluate, select
    from filegram_kit.bench.results import load_results
    from filegram_kit.bench.score import row_points
    from filegram_kit.llm import get_backend
    from filegram_kit.llm.cache import ResponseCache
    from filegram_kit.llm.local_server import MODEL, start

    if not os.environ.get("OPENAI_BASE_URL"):
        os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{start()}/v1"
        os.environ["OPENAI_MODEL"], os.environ["OPENAI_TOOL_MODEL"] = MODEL["alias"], MODEL["tool_alias"]
    cache = args.out / "cache"
    result = {"model": MODEL["alias"], "gguf_sha256": MODEL["sha256"], "context_window": MODEL["context_window"],
              "limit": args.limit, "seed": args.seed, "methods": list(METHODS), "complete": False, "columns": []}
    if args.resume and args.json.is_file():
        earlier = json.loads(args.json.read_text(encoding="utf-8"))
        same = all(earlier.get(k) == result[k] for k in ("model", "gguf_sha256", "limit", "seed", "methods"))
        if not same:
            raise SystemExit(f"{args.json} was run with other settings: rerun without --resume")
        result["columns"] = earlier["columns"]
    columns = result["columns"]
    for label, items, corpus in item_sets(args.data, args.seed):
        for sub_track in sorted({i.sub_track for i in items}):
            if any(c["sub_track"] == sub_track and c["set"] == label for c in columns):
                print(f"{sub_track}: done in {args.json.name} (--resume)", flush=True)
                continue
            chosen = select([i for i in items if i.sub_track == sub_track], args.limit)
            print(f"{sub_track}: {len(chosen)} item(s) x {len(METHODS)} methods from {corpus.name}", flush=True)
            column = {"sub_track": sub_track, "set": label, "items": len(chosen)}
            frames = {}
            for attempt in ("first", "rerun"):
                backend = get_backend("openai_compat", cache=ResponseCache(cache, "use"))
                started = time.perf_counter()
                frames[attempt] = evaluate(chosen, corpus, list(METHODS), backend=backend,
                                           out=args.out / attempt / sub_track, workers=1, executor="thread")
                column[attempt] = {"seconds": round(time.perf_counter() - started, 1), **usage(backend)}
            frame = frames["first"]  # what the model did; the rerun only shows what the cache kept
            column["rerun_rows_equal"] = frames["rerun"].select("method", "question_id", "answer", "score", "error") \
                .equals(frame.select("method", "question_id", "answer", "score", "error"))
            evaluate_controls(chosen, corpus, out=args.out / "first" / sub_track, controls=["chance"])
            rows = row_points(load_results(args.out / "first" / sub_track))
            column["accuracy"] = {m: round(float(rows.filter(rows["method"] == m)["points"].mean() or 0.0), 1)
                                  for m in (*METHODS, "chance")}
            errors = frame.filter(frame["error"].is_not_null())
            column["error_rows"] = {kind: int(n) for kind, n in errors.group_by("error").len().iter_rows()}
            column["context_overflow_rows"] = int(errors["error_message"].str.contains("ContextOverflow").sum())
            column["rows"] = frame.height
            columns.append(column)
            print(f"  {json.dumps(column)}", flush=True)
            write_text(args.json, json.dumps(result, indent=2) + "\n")  # a column at a time: --resume goes on
    result["complete"] = True
    return result


def table(result: dict) -> str:
    """The markdown table of one run (what docs/backends.md shows)."""
    head = ("| column | items | calls | parse failures | context cuts | overflows | other errors | s / call | "
            + " | ".join(m.replace("_", " ") for m in result["methods"]) + " | chance | rerun calls | rerun rows |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for c in result["columns"]:
        first = c["first"]
        other = sum(n for kind, n in c["error_rows"].items() if kind != "parse") - c["context_overflow_rows"]
        per_call = first["seconds"] / first["calls"] if first["calls"] else 0.0
        scores = " | ".join(f"{c['accuracy'][m]:.1f}" for m in result["methods"])
        lines.append(f"| {c['sub_track']} | {c['items']} | {first['calls']} | {first['parse_failures']} | "
                     f"{first['context_cuts']} | {c['context_overflow_rows']} | {other} | {per_call:.1f} | {scores} | "
                     f"{c['accuracy']['chance']:.1f} | {c['rerun']['calls']} | "
                     f"{'same' if c.get('rerun_rows_equal') else 'DIFFER'} |")
    return "\n".join(lines) + "\n"


def section(result: dict) -> str:
    partial = "" if result.get("complete", True) else (" **A partial run**: only the columns below have run "
                                                      "(`python benchmarks/local_llm.py --resume` goes on).")
    return (f"{HEADING}\n{result['model']} (GGUF sha256 {result['gguf_sha256'][:12]}..., a {result['context_window']}"
            f"-token window), {result['limit']} item(s) per column, seed {result['seed']}; accuracy in points "
            f"(0-100), a pipeline check, not a result.{partial}\n\n{table(result)}{END}\n")


def write_docs(path: Path, result: dict) -> None:
    write_marked(path, HEADING, END, section(result).removeprefix(HEADING + "\n").removesuffix(END + "\n"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data", help="holds corpus_quick (+ _multimodal, _visual)")
    parser.add_argument("--limit", type=int, default=1, help="items per sub-track")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "local-llm" / "eval")
    parser.add_argument("--json", type=Path, default=Path(__file__).with_name("local_llm.json"))
    parser.add_argument("--docs", type=Path, default=ROOT / "docs" / "backends.md")
    parser.add_argument("--render-only", action="store_true", help="rewrite the docs table from --json, run nothing")
    parser.add_argument("--resume", action="store_true", help="keep the columns --json holds, run the others")
    args = parser.parse_args()
    if args.render_only:
        result = json.loads(args.json.read_text(encoding="utf-8"))
    else:
        result = run(args)
        write_text(args.json, json.dumps(result, indent=2) + "\n")
    write_docs(args.docs, result)
    print(table(result), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
