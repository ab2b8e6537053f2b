"""How long Track 4 takes offline at paper scale, and what it measures: the multimodal setting's build and
parse loss, the visual setting, and every Table 3 method on File Grounding (text vs multimodal) and Visual
Grounding.

    python benchmarks/track4.py [--seeds 0,1] [--append BENCHMARKS.md] [--workers 2]

Each setting is built from empty into a temporary folder beside the default corpus (built or found first,
not timed); the evaluations write into temporary results folders. File Grounding is answered on both the
text and the multimodal setting (the same 550 items), so a method's change when outputs are rendered is a
paired difference, with a 95% interval from resampling personas (`bench.analysis.pack_differences` does the
same for Table 3's columns); `--seeds 0,1` repeats that comparison on a second draw of items.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl
from markdown_section import write_section  # benchmarks/markdown_section.py (scripts run from this folder)

from filegram_kit.bench.file_grounding import build_file_grounding
from filegram_kit.bench.harness import evaluate
from filegram_kit.bench.visual_grounding import build_visual_setting, controls, rescore, visual_grounding_items
from filegram_kit.multimodal import build_multimodal, loss_summary
from filegram_kit.report.corpus_source import default_corpus
from filegram_kit.report.settings import TABLE3_METHODS

SECTION = "## Track 4 (offline backend)"


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _pct(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.1f}"


def paired_change(text: pl.DataFrame, mm: pl.DataFrame, *, n_boot: int = 2000, seed: int = 0) -> pl.DataFrame:
    """Per method: accuracy in each setting and multimodal minus text on the same items, persona-clustered CI."""
    points = lambda f: f.select("method", "question_id", "profile_id", (pl.col("score").fill_null(0) * 100)  # noqa: E731
                                .alias("p"))
    both = points(text).join(points(mm), on=["method", "question_id", "profile_id"], suffix="_mm")
    personas = sorted(both["profile_id"].unique())
    weights = np.random.default_rng(seed).multinomial(len(personas), [1 / len(personas)] * len(personas), n_boot)
    rows = []
    for method in both["method"].unique(maintain_order=True):
        g = both.filter(pl.col("method") == method)
        who = np.array([personas.index(p) for p in g["profile_id"]])
        t, m, n = (np.bincount(who, w, len(personas)) for w in (g["p"].to_numpy(), g["p_mm"].to_numpy(),
                                                                  np.ones(g.height)))
        reps = (weights @ (m - t)) / (weights @ n)
        rows.append({"method": method, "text": t.sum() / n.sum(), "multimodal": m.sum() / n.sum(),
                     "change": (m - t).sum() / n.sum(), "lo": np.percentile(reps, 2.5),
                     "hi": np.percentile(reps, 97.5)})
    return pl.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seeds", default="0", help="item seeds of the text-vs-multimodal comparison (the first "
                        "one is also timed)")
    parser.add_argument("--append", type=Path, help="write the section into this Markdown file (replaces one)")
    args = parser.parse_args()
    seeds = [int(x) for x in args.seeds.split(",") if x]
    corpus, methods = default_corpus(progress=False), list(TABLE3_METHODS)
    run = dict(backend="offline", workers=args.workers, executor="process", progress=False)
    with tempfile.TemporaryDirectory(prefix="filegram-bench-t4-", dir=corpus.parent) as tmp:
        tmp = Path(tmp)
        mm, t_mm = timed(lambda: build_multimodal(corpus, tmp / "mm", workers=args.workers, progress=False))
        (fg, _), t_items = timed(lambda: build_file_grounding(corpus, seed=0))
        vg = visual_grounding_items(corpus, seed=0)
        visual, t_visual = timed(lambda: build_visual_setting(corpus, tmp / "visual", vg, workers=args.workers))
        mm_rows, t_fg_mm = timed(lambda: evaluate(fg, tmp / "mm", methods, out=tmp / "r_mm", **run))
        text_rows, t_fg_text = timed(lambda: evaluate(fg, corpus, methods, out=tmp / "r_text", **run))
        vg_rows, t_vg = timed(lambda: evaluate(vg, tmp / "visual", methods, out=tmp / "r_vg", **run))
        changes = {seeds[0]: paired_change(text_rows, mm_rows)}
        for seed in seeds[1:]:
            other = build_file_grounding(corpus, seed=seed)[0]
            changes[seed] = paired_change(evaluate(other, corpus, methods, out=tmp / f"r_text{seed}", **run),
                                          evaluate(other, tmp / "mm", methods, out=tmp / f"r_mm{seed}", **run))
    lines = [SECTION, "", f"`python benchmarks/track4.py` on {platform.machine()}, {os.cpu_count()} cores, "
             f"{args.workers} workers; each setting built from an empty folder.", "", "| step | seconds |", "|---|---|",
             f"| multimodal setting: {loss_summary(mm.report)['files'].sum():,} files rendered and parsed "
             f"| {t_mm:.1f} |",
             f"| File Grounding items ({len(fg)}) | {t_items:.1f} |",
             f"| visual setting: {visual['sessions']} first halves replayed and captioned ({visual['exact']:,} of "
             f"{visual['frames']:,} frames read exactly: {100 * visual['exact'] / max(visual['frames'], 1):.1f}%) "
             f"| {t_visual:.1f} |",
             f"| File Grounding, {len(methods)} methods, multimodal setting | {t_fg_mm:.1f} |",
             f"| File Grounding, {len(methods)} methods, text setting | {t_fg_text:.1f} |",
             f"| Visual Grounding, {len(methods)} methods | {t_vg:.1f} |", "",
             f"Targets on 2 cores: the multimodal setting builds in <= 3 min ({t_mm:.0f} s: "
             f"{'met' if t_mm <= 180 else 'NOT met'}); Track 4's evaluation of all methods, File Grounding on the "
             f"multimodal setting plus Visual Grounding, in <= 10 min ({t_fg_mm + t_vg:.0f} s: "
             f"{'met' if t_fg_mm + t_vg <= 600 else 'NOT met'}; the visual setting's build adds {t_visual:.0f} s "
             f"once, the text-setting comparison {t_fg_text:.0f} s). OCR (page images and charts, in English and "
             "Chinese, enlarged 2x) is most of the build's CPU since PDFs load a cut of their font (section \"Speed "
             "work (issue 49)\").", "",
             "Parse loss of the multimodal setting (words of each file's section the shared parser recovers; "
             "English words and Chinese characters apart, each Chinese character counted as a word):", "",
             "| format | files | words recovered (%) | English words (%) | Chinese characters (%) | files with "
             "Chinese | tables flattened | images without text | untranscribed |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['format']} | {r['files']} | {_pct(r['recovered'])} | {_pct(r['recovered_en'])} | "
              f"{_pct(r['recovered_zh'])} | {r['files_with_chinese']} | {r['tables_flattened']} | "
              f"{r['images_without_text']} | {r['audio_without_transcript']} |"
              for r in loss_summary(mm.report).iter_rows(named=True)]
    for seed, change in changes.items():
        lines += ["", f"File Grounding accuracy (%), item seed {seed}: the same {len(fg)} items in both settings; "
                  "change = multimodal - text [95% CI, personas resampled]:", "",
                  "| method | text | multimodal | change |", "|---|---|---|---|"]
        lines += [f"| {r['method']} | {r['text']:.1f} | {r['multimodal']:.1f} | {r['change']:+.1f} [{r['lo']:.1f}, "
                  f"{r['hi']:.1f}] |" for r in change.iter_rows(named=True)]
    judged = rescore(vg_rows, vg).group_by("method", maintain_order=True).agg(
        pl.col("score").mean(), pl.col("operations", "targets", "naming").mean())
    lines += ["", f"Visual Grounding rubric score (0-100) over {len(vg)} items, and its parts (0-1); judge controls: "
              f"{controls(vg)}:", "", "| method | score | operations | targets | naming |", "|---|---|---|---|---|"]
    lines += [f"| {r['method']} | {r['score']:.1f} | {r['operations']:.2f} | {r['targets']:.2f} | {r['naming']:.2f} |"
              for r in judged.iter_rows(named=True)]
    text = "\n".join(lines) + "\n"
    if args.append:
        write_section(args.append, SECTION, text)
    print(text)


if __name__ == "__main__":
    main()
