"""Messy archives with planted problems: the health-check, cleanup and consistency tasks (T-17, T-21, T-32).

Duplicates are planned as the same title/text/motif under another path, so the encoders give
them identical bytes; temporary files, misplaced files, missing references and text records that
contradict their audio are marked in `InputFile.flags` for the checks that need ground truth.
"""

from __future__ import annotations

from dataclasses import replace

from .content import Composer, InputFile

BAD_NAMES = ("{stem} copy (2)", "{stem}_final_final_v3", "Copy of {stem}", "{stem} (1)", "{stem}-DUPLICATE")


def duplicate(c: Composer, f: InputFile, pattern: str, folder: str | None = None) -> InputFile:
    """Same content as f under a new (badly chosen) name, optionally in another folder."""
    base, _, name = f.path.rpartition("/")
    stem = name.rsplit(".", 1)[0]
    where = base if folder is None else folder
    new_name = f"{pattern.format(stem=stem)}.{f.ext}"
    path = c.claim(f"{where}/{new_name}" if where else new_name)
    return replace(f, path=path, flags=(f"duplicate-of:{f.path}",))


def t17_health_check(c: Composer) -> list[InputFile]:
    """A legal practice's folders with inconsistent names, a duplicate, misplaced and expired files, a dead link."""
    folders = ("Cases", "cases_2023", "Correspondence", "misc", "")
    files = []
    plan = {"eml": 6, "pdf": 5, "docx": 4, "txt": 1, "png": 2, "xlsx": 1, "ics": 1, "mp3": 1}
    for ext, n in plan.items():
        for _ in range(n):
            files.append(c.file(ext, folder=c.pick(folders), naming=c.pick(("messy", "clean"))))
    docx = next(f for f in files if f.ext == "docx")
    files.append(duplicate(c, docx, "Copy of {stem}", folder="misc"))
    misplaced = next(i for i, f in enumerate(files) if f.ext == "png")
    files[misplaced] = replace(files[misplaced], path=f"Correspondence/{files[misplaced].name}",
                               flags=("misplaced",))
    title = "Autosave - call notes"
    files.append(c.file("txt", path="~$autosave_call_notes.txt", title=title, flags=("temporary", "expired"),
                        text=f"{title}\nTEMPORARY FILE - last saved 3 January 2022, safe to delete\n\n"
                             + "\n".join(c.sentences(4)) + "\n"))
    missing = f"Evidence/photo_{int(c.rng.integers(10, 99))}.png"
    title = "Exhibit list"
    files.append(c.file("txt", path="exhibit_list.txt", title=title, flags=(f"missing-reference:{missing}",),
                        text=f"{title}\n============\n\nExhibit A: {files[0].path}\nExhibit B: {missing}\n"
                             f"Exhibit C: {files[1].path}\n\n" + "\n".join(c.sentences(3)) + "\n"))
    return files


def t21_cleanup(c: Composer) -> list[InputFile]:
    """A long-lived project folder: 9 exact duplicates under bad names, a .tmp, a .bak, scattered media."""
    folders = ("", "", "assets", "old", "misc", "Downloads")
    originals = {"png": 11, "mp3": 4, "jpg": 4}
    files = [c.file(ext, folder=c.pick(folders), naming=c.pick(("camera", "clean", "messy")))
             for ext, n in originals.items() for _ in range(n)]
    pngs = [f for f in files if f.ext == "png"]
    dups = [duplicate(c, f, c.pick(BAD_NAMES)) for f in pngs[:5]]
    dups += [duplicate(c, pngs[5], "{stem}", folder="old"), duplicate(c, pngs[6], "Untitled Document")]
    dups += [duplicate(c, next(f for f in files if f.ext == ext), c.pick(BAD_NAMES), folder="misc")
             for ext in ("mp3", "jpg")]
    listing = "\n".join(f"{f.path}" for f in files[:8])
    tmp_title, bak_title = "Asset list (autosave)", "Project notes (backup)"
    files += dups + [
        c.file("tmp", path="~$asset_list.tmp", title=tmp_title, flags=("temporary",),
               text=f"{tmp_title}\nautosave - do not edit\n\n{listing}\n"),
        c.file("bak", path="Untitled Document.bak", title=bak_title, flags=("temporary", "backup"),
               text=c.note(bak_title, "txt", sections=2)),
    ]
    return files


def t32_consistency(c: Composer) -> list[InputFile]:
    """An archive whose documents cite media: duplicate media, one dead reference, one memo/record mismatch."""
    media = [c.file(ext, folder=folder, naming="camera" if ext == "png" else "clean")
             for ext, folder, n in (("png", "images", 6), ("mp3", "audio", 3), ("mp4", "video", 2)) for _ in range(n)]
    dups = [duplicate(c, media[0], "{stem} copy (2)"), duplicate(c, media[1], "{stem}", folder="docs"),
            duplicate(c, media[6], "Copy of {stem}"), duplicate(c, media[9], "{stem}_final")]
    missing = f"images/site_photo_{int(c.rng.integers(10, 99))}.png"
    memo = media[7]
    people = [p for p in c.pools["person"] if p not in memo.text]
    wrong = memo.text
    for p in c.pools["person"]:
        if p in wrong:
            wrong = wrong.replace(p, people[0], 1)
            break
    else:
        wrong = f"{people[0]} says: " + wrong
    docs = []
    for title, cited in (("Media index", media[:6] + media[6:9]), ("Project brief", media[:3]),
                         ("Video log", media[9:11])):
        lines = [title, "", f"Compiled {c.fill('{date}')} by {c.fill('{person}')}", "", "## Referenced files"]
        lines += [f"- {f.path}: {f.title}" for f in cited]
        if title == "Media index":
            lines.append(f"- {missing}: site photo (final)")
        lines += ["", "## Notes", " ".join(c.sentences(3))]
        flags = (f"missing-reference:{missing}",) if title == "Media index" else ()
        docs.append(c.file("docx", folder="docs", title=title, text="\n".join(lines) + "\n", flags=flags))
    record_title = f"Transcript record: {memo.title}"
    record = c.file("txt", folder="docs", title=record_title, flags=(f"mismatch-with:{memo.path}",),
                    text=f"{record_title}\n\nSource: {memo.path}\n\n{wrong}\n")
    others = [c.file(ext, folder="docs" if ext == "pdf" else "") for ext in ("eml", "eml", "eml", "pdf", "pdf")]
    return media + dups + docs + [record] + others
