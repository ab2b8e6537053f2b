"""How each of the 32 tasks' workspaces is laid out: theme, naming style, folders and bespoke files.

A `Layout` says which theme a task's documents come from and how its files are named and placed.
Tasks whose prompts imply structure (a knowledge base, topic folders, planted errors, duplicates)
add a `special` step that writes those files; whatever of Table 10's composition is left is
filled with generic themed documents. `plan_files` checks the result against the composition.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from . import archives as archives
from . import text_tasks as text_tasks
from .company_documents import t29_registry
from .content import Composer, InputFile
from .themes import THEMES


@dataclass(frozen=True)
class Layout:
    theme: str
    naming: str = "clean"  # clean | messy | camera (images and videos only) | mixed
    folders: dict[str, tuple[str, ...]] = field(default_factory=dict)  # ext -> folders cycled by generic files
    focus: dict[str, int] = field(default_factory=dict)  # slot -> how many values this task keeps
    motifs: tuple[str, ...] = ()  # restrict image/video motifs
    special: Callable[[Composer], list[InputFile]] | None = None
    finish: Callable[[Composer, list[InputFile]], list[InputFile]] | None = None


def plan_files(task_id: str, composition: dict[str, int], c: Composer, layout: Layout) -> list[InputFile]:
    """Special files first, generic themed files for the rest, then the layout's finishing step."""
    for slot, n in layout.focus.items():
        c.focus(slot, n)
    c.motifs = frozenset(layout.motifs) or None
    files = layout.special(c) if layout.special else []
    have = Counter(f.ext for f in files)
    for ext, n in composition.items():
        if have[ext] > n:
            raise ValueError(f"{task_id}: layout plans {have[ext]} .{ext} files, composition allows {n}")
        folders = layout.folders.get(ext, ("",))
        files += [c.file(ext, folder=folders[i % len(folders)], naming=layout.naming) for i in range(n - have[ext])]
    if layout.finish:
        files = layout.finish(c, files)
    got, want = Counter(f.ext for f in files), Counter({k: v for k, v in composition.items() if v})
    if got != want:
        raise ValueError(f"{task_id}: planned files {dict(got)} do not match the composition {dict(want)}")
    return files


# -- special steps of the multi-folder tasks ----------------------------------------------------------
def t16_briefing(c: Composer) -> list[InputFile]:
    """Company folders (notes, earnings PDF, call audio), research, communications, data, personal."""
    files = []
    for folder, org, call in (("TSMC", "TSMC", True), ("SeaLtd", "Sea Ltd", False), ("Intel", "Intel", True)):
        files += [c.file("md", folder=folder, title=f"{org} research notes", org=org),
                  c.file("pdf", folder=folder, title=c.fill("{org} {quarter} earnings report", org=org), org=org)]
        if call:
            files.append(c.file("mp3", folder=folder, title=c.fill("{org} {quarter} earnings call", org=org), org=org))
    files += [c.file("md", folder="research") for _ in range(3)]
    files += [c.file("eml", folder="communications") for _ in range(4)]
    files += [c.file("md", folder="communications", title=c.fill("Weekly sync notes {iso}")) for _ in range(2)]
    files += [c.file("png", folder="data") for _ in range(2)] + [c.file("csv", folder="data")]
    home = c.with_theme(THEMES["personal"])
    return files + [home.file("md", folder="personal"), home.file("txt", folder="personal", kind="note")]


KB_INDEX = "Legal reference knowledge base - index"


def t18_legal_kb(c: Composer) -> list[InputFile]:
    """The legal KB's summaries (one with a planted error), the client register and three update batches."""
    case = c.pick(c.pools["org"])
    wrong, right = c.fill("{date}"), c.fill("{date}")
    closed = c.sample(c.pools["person"], 2)
    rows = [f"| {p} | {c.fill('{stage}')} | {c.fill('{iso}')} |" for p in c.pools["person"] if p not in closed][:4]
    rows += [f"| {p} | closed | 2022-{int(c.rng.integers(1, 13)):02d}-15 |" for p in closed]
    clients = [rows[i] for i in c.rng.permutation(len(rows))]
    pages = {
        "case_law/family_law_cases.md": ("Family law cases", [c.fill("- {org}: {topic}; {stage}.") for _ in range(4)]),
        "criminal_law/drug_offences_summary.md": ("Drug offences summary", [
            f"- The appeal in {case} was decided on {wrong}.",
            *[c.fill("- Section {num} of the {statute} covers {topic}.") for _ in range(3)]]),
        "court_procedures/court_attendance_guide.md": ("Court attendance guide", [
            "## Before the hearing", c.fill("Arrive 30 minutes early at the {place}."), "## On the day",
            "Bring identity documents and copies of all filed papers.", "## After the hearing",
            "Record the outcome and next date in the client register."]),
        "client_matters/client_register.md": ("Client register", ["| client | status | last contact |",
                                                                   "|---|---|---|", *clients]),
    }
    files = [c.file("md", path=path, title=title, text="\n".join([f"# {title}", "", *body]) + "\n",
                    flags=("planted-error:appeal date",) if "drug" in path else ())
             for path, (title, body) in pages.items()]
    batches = [["Add a new topic: Employment Law.", "Create employment_law/employment_law_overview.md covering "
                "wrongful dismissal, salary claims and the Employment Act.", "Add it to index.md."],
               [f"Correct the drug offences summary: the appeal in {case} was decided on {right}, not {wrong}.",
                "Add a 'Virtual hearings' section to the court attendance guide (video link etiquette, testing "
                "the connection, documents shared on screen).", "Update index.md."],
               [f"Remove client entries closed before 2023 ({', '.join(closed)}).",
                "Reorganise the KB into reference/ (static materials: case law, statutes, PDFs, audio) and "
                "operations/ (dynamic documents: client register, procedures).", "Update index.md to the new paths."]]
    for i, steps in enumerate(batches, 1):
        title = f"Update batch {i}"
        text = "\n".join([f"# {title}", "", f"Issued {c.fill('{date}')}. Process after batch {i - 1}." if i > 1
                          else "Process first.", "", *[f"{k}. {s}" for k, s in enumerate(steps, 1)]]) + "\n"
        files.append(c.file("md", path=f"updates/batch_{i}.md", title=title, text=text))
    return [c.file("md", path="index.md", title=KB_INDEX, text=""), *files]  # text written by t18_index


def t18_index(c: Composer, files: list[InputFile]) -> list[InputFile]:
    """index.md lists every knowledge-base file by topic folder (written last, when all paths are known)."""
    lines = [f"# {KB_INDEX}", "", f"Last updated {c.fill('{date}')}"]
    for folder in ("case_law", "criminal_law", "court_procedures", "client_matters"):
        lines += ["", f"## {folder}/"] + [f"- [{f.title}]({f.path})" for f in files if f.path.startswith(folder + "/")]
    lines += ["", "## updates/", "Pending update batches: batch_1.md, batch_2.md, batch_3.md"]
    return [replace(f, text="\n".join(lines) + "\n") if f.path == "index.md" else f for f in files]


def t19_context(c: Composer) -> list[InputFile]:
    """The client's background and the meeting agenda that the audience adaptation is for."""
    c.pools["org"] = ("Re Chen Lihua (custody)", "Chen v. Wong (maintenance)")
    bg = ["# Client background: Mrs. Chen Lihua", "", c.fill("- Age {num}, retired school canteen worker; "
          "first language Mandarin, reads simple English."), "- No legal training; worried about costs and "
          "about seeing her grandchildren.", c.fill("- Matters: Re Chen Lihua (custody); next date {date}."),
          "- Prefers short sentences, examples, and a list of what she must do."]
    agenda = ["# Meeting agenda", "", c.fill("Date: {date}, {time}, Legal Aid Bureau"), "",
              "1. Explain where the custody case stands.", "2. What the judgment means for her.",
              "3. Documents she needs to bring.", "4. Costs and legal aid contribution.", "5. Questions."]
    return [c.file("md", path="context/client_background.md", title="Client background: Mrs. Chen Lihua",
                   text="\n".join(bg) + "\n"),
            c.file("md", path="context/meeting_agenda.md", title="Meeting agenda", text="\n".join(agenda) + "\n")]


def t24_earnings(c: Composer) -> list[InputFile]:
    """Two quarters of earnings-call audio and 10-Q filings for each of four tech companies."""
    c.pools["org"] = tuple(c.sample(("TSMC", "Intel", "Nvidia", "ASML", "MediaTek", "Samsung Electronics"), 4))
    files = []
    for org in c.pools["org"]:
        for q in ("Q2", "Q3"):
            files += [c.file("mp3", title=f"{org} {q} {c.theme.year} earnings call", org=org, quarter=q),
                      c.file("pdf", title=f"{org} 10-Q filing {q} {c.theme.year}", org=org, quarter=q)]
    return files


LAYOUTS: dict[str, Layout] = {
    "T-01": Layout("investment"),
    "T-02": Layout("legal"),
    "T-05": Layout("work", naming="mixed"),
    "T-06": Layout("investment", focus={"org": 3}),
    "T-07": Layout("personal"),
    "T-08": Layout("work"),
    "T-09": Layout("investment", special=text_tasks.t09_long_report),
    "T-10": Layout("investment", special=text_tasks.t10_knowledge_base),
    "T-11": Layout("work", special=text_tasks.t11_inconsistent_docs),
    "T-12": Layout("work", folders={"pdf": ("reference",), "png": ("work",), "eml": ("meeting_notes",)},
                   special=text_tasks.t12_mixed_formats),
    "T-13": Layout("investment", special=text_tasks.t13_review_feedback),
    "T-14": Layout("work", special=text_tasks.t14_versions),
    "T-15": Layout("investment", special=text_tasks.t15_conflicting_reports),
    "T-16": Layout("investment", special=t16_briefing),
    "T-17": Layout("legal", special=archives.t17_health_check),
    "T-18": Layout("legal", folders={"pdf": ("case_law", "criminal_law", "court_procedures", "criminal_law"),
                                     "mp3": ("case_law",), "docx": ("criminal_law",), "eml": ("client_matters",),
                                     "png": ("court_procedures",)}, special=t18_legal_kb, finish=t18_index),
    "T-19": Layout("legal", folders={"docx": ("case_reports",), "pdf": ("legal_reference",), "mp3": ("audio_memos",),
                                     "eml": ("client_communications",)}, special=t19_context),
    "T-21": Layout("archive", special=archives.t21_cleanup),
    "T-22": Layout("film", naming="messy"),
    "T-23": Layout("travel", naming="camera", motifs=("landmark", "mountain", "people", "orchard", "room")),
    "T-24": Layout("investment", special=t24_earnings),
    "T-25": Layout("legal"),
    "T-26": Layout("personal", naming="mixed"),
    "T-27": Layout("student"),
    "T-28": Layout("pet"),
    "T-29": Layout("registry", special=t29_registry),
    "T-30": Layout("memos"),
    "T-31": Layout("travel", naming="camera", motifs=("mountain", "orchard", "landscape")),
    "T-32": Layout("archive", special=archives.t32_consistency),
}


def layout_for(task_id: str) -> Layout:
    """The task's layout; tasks not listed (new task files, empty workspaces) get generic work documents."""
    return LAYOUTS.get(task_id, Layout("work"))
