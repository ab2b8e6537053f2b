"""What the offline agent does on a task, phase by phase, steered by its policy.

    explore -> search -> read -> (modify inputs | organize) -> produce -> refine -> curate -> verify

Which phases run depends on the task type (paper Table 10); how each runs depends on the tiers
the policy shows (spec 5.3): sequential full reads vs search-first partial reads vs breadth-first
skims (A), long structured multi-file output vs one short note (B), nested folders and long names
vs a flat root (C), small edits with backups vs bulk rewrites (D), cleanup vs accumulation (E),
charts and data files vs tables vs prose (F). What the files and folders are called, and the words of
what is written, come from the agent's style pack (`ag.pack`, `style_packs.py`).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ..traces.documents import is_text_format
from ..traces.schema import Tier
from .charts import bar_chart_png
from .compose import Fact, Style, compose_index, compose_report, data_csv, extract_fact, revise
from .naming import file_name, folder_plan, slug_words
from .style_packs import PACK_A

if TYPE_CHECKING:
    from .agent import OfflineAgent

IMAGE_EXT = {"png", "jpg", "jpeg", "gif", "svg"}
JUNK = re.compile(r"(\.tmp$|\.bak$|~$|copy ?\(\d\)|final_final|untitled)", re.IGNORECASE)


def perform(ag: OfflineAgent) -> None:
    kind = ag.task.type
    inputs = ag.inputs = ag.tools.files()
    if inputs:
        explore(ag)
        matched = search(ag, inputs)
        read(ag, inputs, matched)
    if kind in ("iterate", "maintain"):
        modify_inputs(ag, inputs)
    if kind == "organize" or (inputs and ag.policy.shown["C"] != Tier.R and "C" in ag.task.dims):
        organize(ag, inputs)
    produce(ag, inputs)
    refine(ag)
    curate(ag, inputs)
    verify(ag)


# -- reading ---------------------------------------------------------------------------------
def explore(ag: OfflineAgent) -> None:
    roll = ag.rng.random()
    if roll < 0.45:  # list the root and every file in one parallel turn
        ag.act_batch([("ls", {"path": "."}), ("bash", {"command": "find . -type f"})])
    else:
        ag.act("ls", path=".")
    dirs = sorted({PurePosixPath(f).parent.as_posix() for f in ag.tools.files()} - {"."})
    extra = ag.policy.int("browses") - 1
    if extra > 0 and dirs:
        picks = [dirs[int(i)] for i in ag.rng.permutation(len(dirs))[:extra]]
        ag.act_batch([("ls", {"path": d}) for d in picks]) if ag.rng.random() < 0.5 else [
            ag.act("ls", path=d) for d in picks]
        extra -= len(picks)
    ag.pending_browses = max(0, extra)
    if 0.45 <= roll < 0.65:
        ag.act("bash", command="find . -type f")


def _keywords(ag: OfflineAgent) -> list[str]:
    words = [w for w in re.findall(r"[A-Za-z]{5,}", ag.task.description) if w.lower() not in {"files", "their"}]
    return words or ["summary"]


def search(ag: OfflineAgent, inputs: list[str]) -> list[str]:
    """Grep for task words or glob for a file type; returns the files found, best first."""
    found: list[str] = []
    for i in range(ag.policy.int("searches")):
        if i % 2 == 0:
            word = _keywords(ag)[int(ag.rng.integers(len(_keywords(ag))))]
            result = ag.act("grep", pattern=word)
            hits = [line.split(":", 1)[0] for line in result.output.splitlines() if ":" in line]
        else:
            ext = PurePosixPath(inputs[int(ag.rng.integers(len(inputs)))]).suffix or ".md"
            result = ag.act("glob", pattern=f"*{ext}")
            hits = [line for line in result.output.splitlines() if "/" in line or "." in line]
        found += [h for h in hits if h in inputs and h not in found]
    return found


def _reading_list(ag: OfflineAgent, inputs: list[str], matched: list[str]) -> list[str]:
    texts = [f for f in inputs if not _is_image(f)]
    images = [f for f in inputs if _is_image(f)]
    order = matched + [f for f in texts if f not in matched]
    if ag.policy.shown["A"] == Tier.R:  # breadth-first: a shuffled skim across folders
        order = matched + [texts[int(i)] for i in ag.rng.permutation(len(texts)) if texts[int(i)] not in matched]
    count = int(min(ag.policy["read_cap"], max(1, round(ag.policy["read_fraction"] * len(inputs)))))
    chosen = order[:count]
    chosen += [images[int(i)] for i in ag.rng.permutation(len(images))[:ag.policy.int("image_reads")]]
    return chosen


def _is_image(path: str) -> bool:
    return PurePosixPath(path).suffix.lstrip(".").lower() in IMAGE_EXT


def read_file(ag: OfflineAgent, path: str, *, window: bool) -> None:
    """A full read, or a window of a nominal 40-line file (the agent cannot know the length before reading)."""
    params: dict = {"file_path": path}
    if window:
        params["limit"] = max(8, int(40 * ag.policy["window_fraction"]))
        if ag.policy.shown["A"] == Tier.M and ag.rng.random() < 0.5:
            params["offset"] = int(ag.rng.integers(1, 12))
    result = ag.act("read", **params)
    if result.ok:
        ag.facts.setdefault(path, extract_fact(path, result.output))


def read(ag: OfflineAgent, inputs: list[str], matched: list[str]) -> None:
    chosen = _reading_list(ag, inputs, matched)
    i = 0
    skim = ag.policy.shown["A"] == Tier.R
    while i < len(chosen):
        if ag.rng.random() < ag.policy["batch_reads_p"] and i + 1 < len(chosen):
            batch = chosen[i:i + int(ag.rng.integers(2, 4))]
            results = ag.act_batch([("read", {"file_path": p, **({"limit": 15} if skim else {})}) for p in batch])
            for path, result in zip(batch, results, strict=True):
                if result.ok:
                    ag.facts.setdefault(path, extract_fact(path, result.output))
            i += len(batch)
            continue
        folder = PurePosixPath(chosen[i]).parent.as_posix()
        if ag.pending_browses and folder not in (".", PurePosixPath(chosen[i - 1]).parent.as_posix() if i else "."):
            ag.act("ls", path=folder)  # step into the folder before opening the file
            ag.pending_browses -= 1
        read_file(ag, chosen[i], window=ag.rng.random() >= ag.policy["full_read_p"])
        i += 1
    for _ in range(ag.policy.int("revisits")):
        if chosen:
            read_file(ag, chosen[int(ag.rng.integers(len(chosen)))], window=ag.rng.random() < 0.5)


# -- writing ---------------------------------------------------------------------------------
def style(ag: OfflineAgent, figures: tuple[str, ...] = (), scale: float = 1.0) -> Style:
    k = ag.policy
    k.note("tone")
    return Style(lang=k.lang, tone=k.tone.value, heading_depth=k.int("heading_depth"),
                 target_chars=int(k["target_chars"] * scale), tables=k.int("tables"), figures=figures,
                 bullets=bool(ag.rng.random() < k["bullets_p"]), pack=ag.pack)


def topic(ag: OfflineAgent) -> str:
    if ag.policy.lang == "zh":
        return f"{ag.pack.zh_type[ag.task.type]}：{ag.task.description}"
    return ag.task.description


def mkdirs(ag: OfflineAgent, dirs: list[str]) -> None:
    fresh = [d for d in dict.fromkeys(dirs) if d and d != "." and not ag.tools.real(d).exists()]
    if fresh:
        ag.act("bash", command="mkdir -p " + " ".join(fresh))


def write(ag: OfflineAgent, path: str, content: str | bytes) -> None:
    result = ag.act("write", file_path=path, content=content)
    if result.ok and path not in ag.outputs:
        ag.outputs.append(path)


def produce(ag: OfflineAgent, inputs: list[str]) -> None:
    """The main document, plus figures/data (F) and auxiliary files (B), where the persona keeps them (C)."""
    k, facts = ag.policy, list(ag.facts.values()) or [_prompt_fact(ag)]
    plan = folder_plan(ag, "output")
    if ag.pending_browses and ag.rng.random() < 0.7:
        ag.act("ls", path=".")
        ag.pending_browses -= 1
    mkdirs(ag, [plan.main] + ([plan.figures] if k.int("charts") else []) + ([plan.aux] if k.int("aux_files") else []))
    if ag.rng.random() < k["scratch_p"]:
        scratch = plan.join(plan.main, _phrase_name(ag, "draft", "tmp" if ag.rng.random() < 0.5 else "md"))
        write(ag, scratch, compose_report(topic(ag), facts[:3], style(ag, scale=0.3), ag.rng))
        ag.scratch.append(scratch)
    figures = []
    for n in range(k.int("charts")):
        path = plan.join(plan.figures, _phrase_name(ag, "figure", "png", n=n + 1))
        values = [(label, value) for f in facts for label, value in f.numbers] or [
            (PurePosixPath(f.source).suffix.lstrip(".") or "doc", float(len(f.lines))) for f in facts]
        write(ag, path, bar_chart_png(topic(ag), values[n * 4:n * 4 + 6] or values[:6]))
        figures.append(posixpath.relpath(path, plan.main))  # as the main document will link it
    for _ in range(k.int("data_files")):
        write(ag, plan.join(plan.main, _phrase_name(ag, "data", "csv")), data_csv(facts, pack=ag.pack))
    main = plan.join(plan.main, _main_name(ag))
    write(ag, main, compose_report(topic(ag), facts, style(ag, tuple(figures)), ag.rng))
    if ag.rng.random() < 0.3:
        ag.act("bash", command=f"wc -l '{main}'")
    if not inputs:
        _deliverables(ag, plan)
    aux = [_aux(ag, plan, facts, n) for n in range(k.int("aux_files"))]
    if len(aux) > 1 and ag.rng.random() < 0.5:  # independent files: written in one parallel tool-use turn
        ag.act_batch([("write", {"file_path": path, "content": text}) for path, text in aux])
        ag.outputs += [path for path, _ in aux if path not in ag.outputs]
    else:
        for path, text in aux:
            write(ag, path, text)


def _aux(ag: OfflineAgent, plan, facts: list[Fact], n: int) -> tuple[str, str]:
    """An auxiliary file (index, appendix, glossary ...) as (path, content)."""
    pack = ag.pack
    kinds = pack.aux_kinds
    kind = kinds[n % len(kinds)]
    if n % len(kinds) == 0:  # the first kind is the index
        entries = [(posixpath.relpath(p, plan.main), pack.describe(PurePosixPath(p).stem)) for p in ag.outputs
                   if ag.tools.real(p).exists()]
        return plan.join(plan.main, pack.index_file), compose_index(topic(ag), entries, ag.policy.lang, pack=pack)
    part = [facts[int(i)] for i in ag.rng.permutation(len(facts))[:4]]
    name = file_name(ag, kind, a_words=PACK_A.aux_kinds[n % len(kinds)])
    return plan.join(plan.aux, name), compose_report(kind.title(), part, style(ag, scale=0.35), ag.rng)


def _phrase_name(ag: OfflineAgent, key: str, ext: str = "md", **fields: int) -> str:
    """A file named after one of the pack's phrases (a scratch file, a chart, a script ...)."""
    return file_name(ag, ag.pack.phrases[key].format(**fields), ext, a_words=PACK_A.phrases[key].format(**fields))


def _deliverables(ag: OfflineAgent, plan) -> None:
    """Tasks that start from an empty folder list what to make; detailed personas make each its own file."""
    items = [s.strip() for s in re.split(r"\s\d\.\s", ag.task.prompt_en)[1:] if s.strip()] or [ag.task.description]
    per_file = {Tier.L: 1, Tier.M: 2, Tier.R: 4}[ag.policy.shown["B"]]
    for n in range(0, len(items), per_file):
        group = items[n:n + per_file]
        facts = [Fact(ag.pack.prompt_source, item[:80], [item]) for item in group]
        words = " ".join(slug_words(group[0])[:3])
        name = file_name(ag, words) if words else _phrase_name(ag, "part", n=n)
        write(ag, plan.join(plan.main, name), compose_report(group[0][:80], facts, style(ag, scale=0.5), ag.rng))


def _main_name(ag: OfflineAgent) -> str:
    """The file the prompt asks for (a name it mentions that is not an input), else the persona's own name."""
    named = [n for n in re.findall(r"\b([A-Za-z0-9][\w-]*\.(?:md|txt|csv|json))\b", ag.task.prompt_en)
             if not any(PurePosixPath(f).name == n for f in ag.inputs)]
    return named[0] if named else file_name(ag, " ".join(slug_words(ag.task.description)[:4]))


def _prompt_fact(ag: OfflineAgent) -> Fact:
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\d\.\s", ag.task.prompt_for(ag.profile)) if len(s) > 20]
    return Fact(ag.pack.prompt_source, ag.task.description, sentences[:8] or [ag.task.description])


def refine(ag: OfflineAgent) -> None:
    """Edits on the agent's own main output (D): many small passes, a few larger ones, or a rewrite."""
    docs = [p for p in ag.outputs if p.endswith(".md") and p not in ag.scratch and not p.endswith(ag.pack.index_file)
            and ag.tools.real(p).is_file()]
    if not docs:
        return
    target = docs[-1] if ag.rng.random() < 0.7 else docs[0]
    if ag.rng.random() < ag.policy["overwrite_p"]:
        facts = list(ag.facts.values()) or [_prompt_fact(ag)]
        write(ag, target, compose_report(topic(ag), facts, style(ag), ag.rng))
        return
    edit_file(ag, target, ag.policy.int("own_edits"), backup=ag.rng.random() < ag.policy["backup_p"])


def edit_file(ag: OfflineAgent, path: str, edits: int, *, backup: bool) -> None:
    if edits <= 0:
        return
    if backup:
        ag.policy.note("version")
    if backup and ag.policy.version != Tier.R:  # in-place editors never keep a copy
        pure = PurePosixPath(path)
        versioned = pure.with_name(f"{pure.stem}{ag.pack.version_suffix}{pure.suffix}")
        if ag.pack is not PACK_A:  # sorted as pack A's copy of the same file
            a_pure = PurePosixPath(ag.canonical(path))
            ag.spelling[versioned.name] = f"{a_pure.stem}{PACK_A.version_suffix}{a_pure.suffix}"
        copy = path + ".bak" if ag.policy.version == Tier.M else str(versioned)
        if ag.act("bash", command=f"cp '{path}' '{copy}'").ok:
            ag.scratch.append(copy)
    for _ in range(edits):
        text = ag.tools.real(path).read_text(encoding="utf-8", errors="replace")
        lines = max(1, int(ag.policy["edit_lines"] * ag.rng.uniform(0.6, 1.4)))
        change = revise(text, lines, ag.rng, ag.policy.lang, pack=ag.pack)
        if change is not None:
            ag.act("edit", file_path=path, old_string=change[0], new_string=change[1])


def modify_inputs(ag: OfflineAgent, inputs: list[str]) -> None:
    """Iterate/maintain tasks: revise the workspace's own documents (D)."""
    editable = [f for f in inputs if is_text_format(f) and f.endswith((".md", ".txt")) and "updates/" not in f]
    limit = {Tier.L: 3, Tier.M: 2, Tier.R: 2}[ag.policy.shown["D"]]
    for path in editable[:limit]:
        if path not in ag.facts:
            read_file(ag, path, window=False)
        if ag.policy.shown["D"] == Tier.R or ag.rng.random() < ag.policy["overwrite_p"]:
            facts = [ag.facts.get(path, _prompt_fact(ag))]
            write(ag, path, compose_report(facts[0].title, facts, style(ag, scale=0.6), ag.rng))
            continue
        edit_file(ag, path, max(1, ag.policy.int("input_edits")), backup=ag.rng.random() < ag.policy["backup_p"])


# -- organizing and curating -------------------------------------------------------------------
def organize(ag: OfflineAgent, inputs: list[str]) -> None:
    """Sort the workspace into folders (C): a script for bulk moves, or one `mv` per group."""
    groups = _groups(ag, inputs)
    if groups:
        mkdirs(ag, list(groups))
        if len(groups) > 3 or ag.rng.random() < ag.policy["script_p"]:  # many groups: one script does it
            script = _phrase_name(ag, "script", "py")
            lines = ["import shutil", "moves = ["] + [f"    ({src!r}, {dst!r})," for dst, files in groups.items()
                                                        for src in files] + ["]",
                                                                              "for src, dst in moves:",
                                                                              "    shutil.move(src, dst)", ""]
            write(ag, script, "\n".join(lines))
            ag.act("bash", command=f"python3 {script}")
            ag.scratch.append(script)
        else:
            for dst, files in groups.items():
                ag.act("bash", command="mv " + " ".join(f"'{f}'" for f in files) + f" '{dst}/'")
    kept = sorted((f for f in ag.tools.files() if JUNK.search(PurePosixPath(f).name) is None), key=ag.canonical)
    for old in kept[:ag.policy.int("renames")]:
        name = file_name(ag, PurePosixPath(old).stem, ext=old.rsplit(".", 1)[-1])
        new = (PurePosixPath(old).parent / name).as_posix()
        if ag.canonical(new) != ag.canonical(old) and not ag.tools.real(new).exists():  # already so named: kept
            ag.act("bash", command=f"mv '{old}' '{new}'")
    if groups and ag.rng.random() < 0.7:
        ag.act("ls", path=".")
    if ag.rng.random() < ag.policy["readme_per_dir_p"]:
        titles = {PurePosixPath(path).name: fact.title for path, fact in ag.facts.items()}  # files have moved
        for folder in list(groups)[:3]:
            entries = [(PurePosixPath(f).name, titles.get(PurePosixPath(f).name, PurePosixPath(f).stem))
                       for f in sorted(ag.tools.files(folder), key=ag.canonical)][:20]
            write(ag, f"{folder}/{ag.pack.index_file}", compose_index(folder, entries, ag.policy.lang, pack=ag.pack))


def _groups(ag: OfflineAgent, inputs: list[str]) -> dict[str, list[str]]:
    depth, count = ag.policy.int("dir_depth"), ag.policy.int("dir_groups")
    if depth <= 0 or count <= 0:
        return {}
    loose = [f for f in inputs if "/" not in f and ag.tools.real(f).exists()]
    folders = folder_plan(ag, "archive")
    existing = frozenset(PurePosixPath(f).parts[0] for f in ag.tools.files() if "/" in f)
    plan: dict[str, list[str]] = {}
    for f in loose:
        seen = ag.facts[f].title if f in ag.facts else ""
        plan.setdefault(folders.group(f, depth, seen, existing), []).append(f)
    ranked = sorted(plan, key=lambda g: (-len(plan[g]), ag.canonical(g)))[:count]  # ties: pack A's spelling
    return {g: plan[g] for g in ranked}


def curate(ag: OfflineAgent, inputs: list[str]) -> None:
    """Cleanup (E): delete scratch files and workspace junk, archive drafts, or keep everything."""
    k = ag.policy
    doomed = [p for p in ag.scratch if ag.tools.real(p).exists() and ag.rng.random() < k["delete_scratch_p"]][:2]
    junk = sorted((f for f in inputs if JUNK.search(PurePosixPath(f).name) and ag.tools.real(f).exists()),
                  key=lambda f: (PurePosixPath(f).suffix not in (".tmp", ".bak"), f))
    if junk and ag.rng.random() < k["delete_junk_p"]:  # the obvious leftovers first, as far as the persona goes
        doomed += junk[:k.int("junk_cap")]
    if doomed:
        ag.act("bash", command="rm " + " ".join(f"'{p}'" for p in doomed))
    keep = [p for p in ag.scratch if ag.tools.real(p).exists()]
    if keep and ag.rng.random() < k["archive_p"]:
        archive = ag.pack.folders["archive"]
        mkdirs(ag, [archive])
        ag.act("bash", command="mv " + " ".join(f"'{p}'" for p in keep) + f" {archive}/")


def verify(ag: OfflineAgent) -> None:
    main = next((p for p in reversed(ag.outputs) if p.endswith(".md") and ag.tools.real(p).exists()), None)
    for _ in range(ag.policy.int("checks") if main else 0):
        roll = ag.rng.random()
        command = f"cat '{main}'" if roll < 0.4 else f"wc -l '{main}'" if roll < 0.7 else "find . -type f"
        ag.act("bash", command=command)
    roll = ag.rng.random()
    if main and ag.policy.shown["A"] == Tier.L and roll < 0.6:
        ag.act("read", file_path=main)
    elif roll < 0.45 + 0.15 * min(1, ag.pending_browses):
        ag.act("ls", path=".")
    elif main:
        ag.act("bash", command=f"wc -l '{main}'")
