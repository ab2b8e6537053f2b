"""How the workbench scales with the number of personas: 20, 100 and 1,000 sampled personas x 32 tasks.

    python benchmarks/scale.py [--personas 20,100,1000] [--root /tmp/filegram-scale] [--workers 2]
                               [--answers 40] [--keep] [--from-stage convert | --stages convert,load]
    python benchmarks/scale.py --report          # only rewrite the section and plot from scale.json

Per corpus size, each stage runs in a fresh process (so its peak memory is its own), in order:
generate (the offline engine, --workers processes), convert (JSON -> the columnar store, as the files
are after generating, then again with every file in the page cache: convert_warm), load
(load_trajectories from the store; from events.json too up to 100 personas), fingerprint (the 17-D
fingerprints end to end from the store, and from events.json up to 100 personas), ingest (FileGramOS,
one memory per persona, --workers processes), items (build_items, item seed 0) and answers (no_context
and filegramos on the first --answers of those items per sub-task, --workers processes). Seconds are timed
inside the stage (no interpreter start-up); peak memory is the largest resident set of the stage's
process tree, sampled every 20 ms. Writes benchmarks/scale.json (sizes not run now keep their
earlier results; each row records the commit and day that measured it), the "Scale" section of
BENCHMARKS.md and benchmarks/scale.png (seconds against personas, log-log, with a linear reference).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAGES = ("generate", "convert", "convert_warm", "load", "load_json", "fingerprint", "fingerprint_json", "ingest",
          "items", "answers")
JSON_UP_TO = 100  # the JSON-path stages only up to this many personas (they are the slow reference)


# -- the stages (run in a child process: `scale.py --stage NAME --corpus DIR --n N`) -----------------------------


def stage(name: str, corpus: Path, n: int, workers: int, answers: int) -> dict:
    if name == "generate":
        from filegram_kit.engine import build_corpus
        from filegram_kit.traces.profiles import sample_profiles

        personas = sample_profiles(n, seed=0)
        start = time.perf_counter()
        report = build_corpus(corpus, profiles=personas, workers=workers, progress=False, store=False)
        return {"seconds": time.perf_counter() - start, "trajectories": report.built + report.skipped}
    if name in ("convert", "convert_warm"):
        from filegram_kit.store import update_store

        if name == "convert_warm":  # every file read once first: the page cache holds them all
            subprocess.run(f"find '{corpus}/signal' -type f -print0 | xargs -0 cat > /dev/null", shell=True, check=True)

        start = time.perf_counter()
        report = update_store(corpus, workers=workers, progress=False, rebuild=True)
        seconds = time.perf_counter() - start
        return {"seconds": seconds, "raw_events": report.raw_events, "rate": report.raw_events / seconds,
                "problems": report.problems}
    if name in ("load", "load_json"):
        from filegram_kit.traces.load import load_trajectories

        start = time.perf_counter()
        trajs = load_trajectories(corpus, progress=False, store=name == "load")
        seconds = time.perf_counter() - start
        events = sum(len(t) for t in trajs)
        return {"seconds": seconds, "raw_events": events, "rate": events / seconds}
    if name in ("fingerprint", "fingerprint_json"):
        return _fingerprint(corpus, store=name == "fingerprint")
    if name == "ingest":
        return _ingest(corpus, workers)
    if name == "items":
        from filegram_kit.bench.generate import build_items
        from filegram_kit.bench.items import write_items

        start = time.perf_counter()
        items = build_items(corpus, seed=0)
        seconds = time.perf_counter() - start
        write_items(items, _items_file(corpus))  # for the answers stage (not timed)
        return {"seconds": seconds, "items": len(items)}
    if name == "answers":
        return _answers(corpus, workers, answers)
    raise ValueError(name)


def _items_file(corpus: Path) -> Path:
    return corpus / "scale-items.parquet"


def _fingerprint(corpus: Path, store: bool) -> dict:
    from filegram_kit.behaviour.fingerprint import fingerprints
    from filegram_kit.traces.cleaning import clean
    from filegram_kit.traces.load import load_trajectories

    start = time.perf_counter()
    fp = fingerprints(corpus) if store else fingerprints(clean(load_trajectories(corpus, store=False,
                                                                               progress=False)).trajectories)
    seconds = time.perf_counter() - start
    events = _behavioural_events(corpus)
    return {"seconds": seconds, "trajectories": fp.height, "events": events, "rate": events / seconds}


def _behavioural_events(corpus: Path) -> int:
    from filegram_kit.store import EventStore

    store = EventStore.open(corpus)
    return int(store.index["events"].sum()) if store is not None else 0


def _ingest_persona(corpus: str, persona: str) -> int:
    from filegram_kit.llm import get_backend
    from filegram_kit.memory import get_memory
    from filegram_kit.traces.cleaning import clean
    from filegram_kit.traces.load import load_trajectories

    trajs = clean(load_trajectories(corpus, profiles=[persona], progress=False)).trajectories
    memory = get_memory("filegramos").ingest(trajs, backend=get_backend("offline"))
    return len(trajs) if memory is not None else 0


def _ingest(corpus: Path, workers: int) -> dict:
    from filegram_kit.store import EventStore
    from filegram_kit.util.executors import get_executor

    personas = sorted(set(EventStore.open(corpus).index["profile_id"]))
    start = time.perf_counter()
    done = sum(r for _, r in get_executor("process", workers=workers).imap(
        _ingest_persona, [(str(corpus), p) for p in personas]))
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "personas": len(personas), "trajectories": done,
            "per_persona": seconds * workers / len(personas)}


def _answers(corpus: Path, workers: int, answers: int) -> dict:
    import tempfile

    from filegram_kit.bench.harness import evaluate, select
    from filegram_kit.bench.items import load_items

    items = select(load_items(_items_file(corpus)), answers)  # the items stage's items
    with tempfile.TemporaryDirectory(prefix="scale-answers-") as out:
        start = time.perf_counter()
        rows = evaluate(items, corpus, ["no_context", "filegramos"], out=out, workers=workers, executor="process",
                        progress=False)
        seconds = time.perf_counter() - start
    return {"seconds": seconds, "rows": rows.height, "rate": rows.height / seconds, "items": len(items)}


# -- the driver ----------------------------------------------------------------------------------------------------


def _tree_rss(pid: int) -> int:
    import psutil

    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def run_stage(name: str, corpus: Path, n: int, workers: int, answers: int) -> dict:
    """The stage in a child process; its result with the peak resident memory of its process tree."""
    cmd = [sys.executable, __file__, "--stage", name, "--corpus", str(corpus), "--n", str(n), "--workers",
           str(workers), "--answers", str(answers)]
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    peak, done = [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(child.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = child.communicate()
    done.set()
    sampler.join()
    if child.returncode:
        raise RuntimeError(f"stage {name} ({n} personas) failed with exit code {child.returncode}")
    return {**json.loads(out.strip().splitlines()[-1]), "peak_mb": peak[0] / 2 ** 20, "commit": _commit(),
            "date": time.strftime("%Y-%m-%d")}


OWN_OUTPUTS = ("benchmarks/scale.json", "benchmarks/scale.png", "BENCHMARKS.md")  # written by this run: not dirt


def _commit() -> str:
    """The checkout's short commit (+ "-dirty" with uncommitted changes to anything but this benchmark's own
    outputs, which its first stage rewrites): which code a row measured."""
    from filegram_kit.bench.manifest import _git

    sha = _git("rev-parse", "--short=7", "HEAD")
    if sha is None:
        return "unknown"
    dirty = _git("status", "--porcelain", "--untracked-files=no", "--", ":/",
                 *(f":(top,exclude){p}" for p in OWN_OUTPUTS))
    return sha + ("-dirty" if dirty else "")


def _exponent(results: dict, name: str, a: int, b: int) -> float | None:
    """log(t_b / t_a) / log(b / a): 1 is linear in personas."""
    ta, tb = results.get(str(a), {}).get(name, {}).get("seconds"), results.get(str(b), {}).get(name, {}).get("seconds")
    if not ta or not tb or a == b:
        return None
    return math.log(tb / ta) / math.log(b / a)


def markdown(results: dict, sizes: list[int], workers: int) -> str:
    import polars as pl

    from filegram_kit.report import to_markdown

    rows = []
    for name in STAGES:
        row = {"stage": name}
        for n in sizes:
            found = results.get(str(n), {}).get(name)
            rate = found.get("rate") if found else None
            row[f"{n}: s"] = None if not found else round(found["seconds"], 2)
            row[f"{n}: peak MB"] = None if not found else round(found["peak_mb"])
            row[f"{n}: per s"] = None if rate is None else f"{rate:,.0f}"
        row["growth exponent"] = None if len(sizes) < 2 else _round(_exponent(results, name, sizes[-2], sizes[-1]))
        rows.append(row)
    table = to_markdown(pl.DataFrame(rows))
    facts = []
    for n in sizes:
        r = results.get(str(n), {})
        facts.append(f"{n} personas: {_count(r, 'generate', 'trajectories')} trajectories, "
                     f"{_count(r, 'convert', 'raw_events')} raw events, "
                     f"{_count(r, 'fingerprint', 'events')} behavioural events, {_count(r, 'items', 'items')} items; "
                     f"measured {_provenance(r)}")
    return ("## Scale\n\n"
            f"`python benchmarks/scale.py` on {platform.machine()} with {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, --workers {workers}: corpora of sampled personas (seed 0) x 32 tasks, "
            "built offline; each stage in a fresh process, seconds timed inside it, peak = largest resident set "
            "of its process tree. `per s`: raw events (convert, load), behavioural events (fingerprint) or "
            "answered rows (answers) per second. `growth exponent`: log(time ratio) / log(persona ratio) between "
            f"the two largest sizes (1 = linear). *_json rows read events.json instead of the store (up to "
            f"{JSON_UP_TO} personas). Plot: benchmarks/scale.png. What grows how, and why: README.md, \"How it "
            "grows\".\n\n"
            + "\n".join(f"- {f}" for f in facts) + "\n\n" + table)


def _provenance(result: dict) -> str:
    """Which code and day measured a size's stages (runs resumed with --from-stage mix them)."""
    groups: dict[str, list[str]] = {}
    for name in STAGES:
        if name in result:
            found = result[name]
            key = (f"on {found['commit']}, {found['date']}" if "commit" in found
                   else "before rows recorded their commit")
            groups.setdefault(key, []).append(name)
    if len(groups) == 1:
        return next(iter(groups))
    return "; ".join(f"{', '.join(names)} {key}" for key, names in groups.items())


def _count(result: dict, stage_name: str, key: str) -> str:
    found = result.get(stage_name, {}).get(key)
    return "?" if found is None else f"{found:,}"


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def plot(results: dict, sizes: list[int], path: Path) -> None:
    import plotly.graph_objects as go

    from filegram_kit.report.export import write_png

    fig = go.Figure()
    for name in STAGES:
        xs = [n for n in sizes if results.get(str(n), {}).get(name)]
        if len(xs) < 2:
            continue
        fig.add_trace(go.Scatter(x=xs, y=[results[str(n)][name]["seconds"] for n in xs], mode="lines+markers",
                                 name=name))
    first = sizes[0]
    base = results[str(first)]["generate"]["seconds"]
    fig.add_trace(go.Scatter(x=sizes, y=[base * n / first for n in sizes], mode="lines", name="linear (from generate)",
                             line=dict(dash="dot", color="grey")))
    fig.update_layout(title="Seconds per stage against personas (x 32 tasks), log-log", width=900, height=560,
                      xaxis=dict(type="log", title="personas", tickvals=sizes, ticktext=[f"{n:,}" for n in sizes]),
                      yaxis=dict(type="log", title="seconds"))
    write_png(fig, path)


def _measure(results: dict, out: Path, name: str, corpus: Path, n: int, args: argparse.Namespace) -> None:
    """Run one stage, keep its row in `results` and write them all to `out` (an interrupted run keeps its rows)."""
    found = results.setdefault(str(n), {})[name] = run_stage(name, corpus, n, args.workers, args.answers)
    print(f"{n:>5} personas  {name:<17} {found['seconds']:9.2f} s  peak {found['peak_mb']:7.0f} MB  "
          + ("" if "rate" not in found else f"{found['rate']:,.0f}/s"), flush=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--personas", default="20,100,1000")
    parser.add_argument("--root", type=Path, default=Path("/tmp/filegram-scale"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--answers", type=int, default=40, help="items per sub-task in the answers stage")
    parser.add_argument("--keep", action="store_true", help="keep the corpora (else each is deleted after use)")
    parser.add_argument("--from-stage", choices=STAGES, help="resume an interrupted run: reuse its corpus (still "
                        "under --root) and its results of the stages before this one")
    parser.add_argument("--stages", help="only these stages (comma-separated), again, on the kept corpus of an "
                        "earlier run (still under --root); the other stages keep their results")
    parser.add_argument("--report", action="store_true", help="only write BENCHMARKS.md's section and the plot from "
                        "benchmarks/scale.json (no stage runs)")
    parser.add_argument("--stage", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stage:
        print(json.dumps(stage(args.stage, args.corpus, args.n, args.workers, args.answers)))
        return
    sizes = [] if args.report else [int(x) for x in args.personas.split(",")]
    out = HERE / "scale.json"
    results = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    first = STAGES.index(args.from_stage) if args.from_stage else 0
    chosen = [s.strip() for s in args.stages.split(",")] if args.stages else None
    if chosen and (bad := [s for s in chosen if s not in STAGES[1:]]):  # generate makes the corpus: not alone
        raise SystemExit(f"--stages: {', '.join(bad)} cannot be rerun alone; stages: {', '.join(STAGES[1:])}")
    for n in sizes:
        corpus = args.root / f"personas_{n}"
        if chosen:
            if not (corpus / "signal").is_dir():
                raise SystemExit(f"{corpus}: no corpus to rerun stages on (run with --keep first)")
            for name in chosen:
                if name.endswith("_json") and n > JSON_UP_TO:
                    continue
                _measure(results, out, name, corpus, n, args)
            continue
        if first == 0:
            shutil.rmtree(corpus, ignore_errors=True)
            results[str(n)] = {}
        elif not (corpus / "signal").is_dir():
            raise SystemExit(f"{corpus}: no corpus of an interrupted run to resume")
        else:
            results[str(n)] = {k: v for k, v in results.get(str(n), {}).items() if STAGES.index(k) < first}
        for name in STAGES[first:]:
            if name.endswith("_json") and n > JSON_UP_TO:
                continue
            _measure(results, out, name, corpus, n, args)
        if not args.keep:
            shutil.rmtree(corpus, ignore_errors=True)
    sys.path.insert(0, str(HERE))
    from markdown_section import write_section

    measured = sorted(int(n) for n in results)  # sizes measured now and in earlier runs (scale.json)
    write_section(HERE.parent / "BENCHMARKS.md", "## Scale", markdown(results, measured, args.workers))
    plot(results, measured, HERE / "scale.png")


if __name__ == "__main__":
    main()
