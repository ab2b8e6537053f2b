"""The agent paths on a real small model: what the engine's LLM agent and KnowAct's LLM acting agent did, read from
the runs they left (nothing is run here).

    filegram corpus --out /tmp/llm_engine_corpus --agent llm --backend openai_compat --profiles p3 --tasks T-09 T-15
    filegram knowact --corpus data/corpus --out /tmp/knowact-llm --methods no_context --personas p1 \\
        --agent llm --backend openai_compat --workers 1
    python benchmarks/local_agents.py --engine /tmp/llm_engine_corpus --knowact /tmp/knowact-llm
    python benchmarks/local_agents.py --render-only     # the docs table again from local_agents.json

Per agent path and condition (KnowAct: each context the acting agent was given, by its context key), from every
run's summary.json: runs, runs that finished the task, runs stopped at the iteration cap, runs that ended on a
model error (by type), tool calls and the share that failed, tokens in and out. For KnowAct also its case rows
(Know and Act passes), which with a 135M model check the pipeline and say nothing of the method. The table in
docs/backends.md is written from local_agents.json by this script, never typed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # markdown_section, also when a test loads this file

from markdown_section import write_marked  # noqa: E402  (benchmarks/, beside this script)

from filegram_kit.util.atomic import write_text  # noqa: E402

START = "<!-- local-agents-table: written by benchmarks/local_agents.py from benchmarks/local_agents.json -->"
END = "<!-- /local-agents-table -->"
EMPTY_CONTEXT = "e3b0c44298fc1c14"  # sha256 of "": KnowAct's zero-memory condition


def tally(summaries: list[Path]) -> dict:
    """What a set of runs did, from their summary.json files."""
    rows = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(summaries)]
    calls = sum(r.get("total_tool_calls", 0) for r in rows)
    failed = sum(round(r.get("total_tool_calls", 0) * (1 - r.get("tool_success_rate", 1.0))) for r in rows)
    errors = Counter(r["error"].split(":")[0] for r in rows if r.get("error"))
    return {"runs": len(rows), "completed": sum(bool(r.get("completed")) for r in rows),
            "at_cap": sum(not r.get("completed") and not r.get("error") for r in rows),
            "model_errors": dict(sorted(errors.items())), "tool_calls": calls, "failed_tool_calls": failed,
            "tokens_in": sum(r.get("total_input_tokens", 0) for r in rows),
            "tokens_out": sum(r.get("total_output_tokens", 0) for r in rows),
            "models": sorted({r.get("model_name", "?") for r in rows})}


def engine_part(corpus: Path) -> dict:
    info = json.loads((corpus / "corpus.json").read_text(encoding="utf-8"))
    return {"path": "engine LLM agent (`filegram corpus --agent llm`)", "condition":
            f"{', '.join(info['profiles'])} x {', '.join(info['tasks'])}",
            **tally(list((corpus / "signal").glob("*/summary.json")))}


def told_contexts() -> dict[str, str]:
    """sha256 of each oracle-preference context (`stated_preference`) -> what it tells the agent."""
    from filegram_kit.knowact.preferences import stated_preference
    from filegram_kit.traces.schema import DIMENSION_CODES

    return {hashlib.sha256(stated_preference(d, tier).encode()).hexdigest(): f"told tier {tier} of dimension {d}"
            for d in DIMENSION_CODES for tier in ("L", "M", "R")}


def knowact_part(out: Path) -> tuple[list[dict], dict]:
    info = json.loads((out / "knowact.json").read_text(encoding="utf-8"))
    told, rows = told_contexts(), []
    for key in sorted((out / "act" / "llm").iterdir()):
        given = json.loads((key / "given.json").read_text(encoding="utf-8"))
        what = ("zero memory (empty context)" if key.name.endswith(EMPTY_CONTEXT) else
                told.get(given["context_sha256"], f"a memory's context ({given['context_chars']} characters)"))
        rows.append({"path": "KnowAct LLM acting agent (`filegram knowact --agent llm`)", "condition": what,
                     **tally(list(key.glob("s*/signal/*/summary.json")))})
    rows.sort(key=lambda r: (r["condition"] != "zero memory (empty context)", r["condition"]))
    cases = {"methods": info["methods"], "personas": info["personas"], "act_runs": info.get("act_runs", 9),
             "complete": (out / "cases.parquet").is_file()}
    if cases["complete"]:
        import polars as pl

        frame = pl.read_parquet(out / "cases.parquet")
        cases |= {"cases": frame.height, "know_pass": int(frame["know_pass"].sum()),
                  "act_pass": int(frame["act_pass"].sum())}
    return rows, cases


def table(result: dict) -> str:
    lines = ["| agent path | condition | runs | finished the task | stopped at the iteration cap | model errors | "
             "tool calls | failed tool calls | tokens in | tokens out |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---:|"]
    for r in result["rows"]:
        errors = ", ".join(f"{k} {v}" for k, v in r["model_errors"].items()) or "0"
        share = f" ({r['failed_tool_calls'] / r['tool_calls']:.0%})" if r["tool_calls"] else ""
        lines.append(f"| {r['path']} | {r['condition']} | {r['runs']} | {r['completed']} | {r['at_cap']} | {errors} | "
                     f"{r['tool_calls']:,} | {r['failed_tool_calls']:,}{share} | {r['tokens_in']:,} | "
                     f"{r['tokens_out']:,} |")
    return "\n".join(lines) + "\n"


def section(result: dict) -> str:
    cases = result.get("knowact")
    models = sorted({m for r in result["rows"] for m in r["models"]})
    text = (f"Runs of {', '.join(models)} as the agent, read from their summary.json files; a pipeline check, not "
            "a result.\n\n" + table(result))
    if cases and cases.get("complete"):
        text += (f"\nKnowAct ({', '.join(cases['methods'])}, {', '.join(cases['personas'])}, --act-runs "
                 f"{cases['act_runs']}): {cases['cases']} case rows, Know passed {cases['know_pass']}, Act passed "
                 f"{cases['act_pass']}.\n")
    elif cases:
        text += (f"\nKnowAct ({', '.join(cases['methods'])}, {', '.join(cases['personas'])}, --act-runs "
                 f"{cases['act_runs']}) had not finished: the runs so far, no case rows yet (rerun the same command "
                 "to resume it).\n")
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", type=Path, help="a corpus folder the engine's LLM agent wrote")
    parser.add_argument("--knowact", type=Path, help="a `filegram knowact --agent llm` output folder")
    parser.add_argument("--json", type=Path, default=Path(__file__).with_name("local_agents.json"))
    parser.add_argument("--docs", type=Path, default=ROOT / "docs" / "backends.md")
    parser.add_argument("--render-only", action="store_true", help="rewrite the docs table from --json, read no runs")
    args = parser.parse_args()
    if args.render_only:
        result = json.loads(args.json.read_text(encoding="utf-8"))
    else:
        if not (args.engine or args.knowact):
            parser.error("give --engine and/or --knowact (or --render-only)")
        result = {"rows": [engine_part(args.engine)] if args.engine else [], "knowact": None}
        if args.knowact:
            rows, result["knowact"] = knowact_part(args.knowact)
            result["rows"] += rows
        write_text(args.json, json.dumps(result, indent=2) + "\n")
    write_marked(args.docs, START, END, section(result))
    print(section(result), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
