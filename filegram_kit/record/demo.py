"""A scripted stretch of real file work, so notebook 09 (and its smoke run) has something to record.

It reads notes, drafts a report and edits it in two passes, files things into folders, keeps a
backup copy, renames, and cleans a temporary file up: every observation kind a live recorder
produces, done with ordinary Python file calls on a real folder (the recorder cannot tell the
difference from an editor or a shell).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

NOTES = {
    "notes/meeting-2026-11-02.md": "# Meeting 2 Nov\n\n- Budget review moved to Friday.\n- Travel costs up 12%.\n",
    "notes/ideas.txt": "Compare Q3 and Q4 spending.\nAsk finance for the vendor list.\n",
    "data/spending.csv": "quarter,travel,software\nQ3,4200,1800\nQ4,4704,2100\n",
}


def seed_folder(folder: str | Path) -> Path:
    """Files a user already had before recording starts (they become the recording's baseline)."""
    folder = Path(folder)
    for rel, text in NOTES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def demo_session(folder: str | Path, *, pause: float = 0.05) -> list[str]:
    """Do the work in `folder` (seeded by `seed_folder`); returns the steps taken, in order.

    `pause` seconds between steps keep each step's events apart (the recorder debounces repeats of one
    change that come within its debounce window, as editors emit several events per save).
    """
    folder = Path(folder)
    steps: list[tuple[str, Callable[[], object]]] = [
        ("read the meeting notes", lambda: (folder / "notes/meeting-2026-11-02.md").read_text(encoding="utf-8")),
        ("read the spending table", lambda: (folder / "data/spending.csv").read_text(encoding="utf-8")),
        ("draft a report", lambda: (folder / "report.md").write_text(
            "# Spending report\n\nTravel rose 12% from Q3 to Q4.\n", encoding="utf-8")),
        ("add a section", lambda: _append(folder / "report.md", "\n## Software\n\nSoftware rose from 1800 to 2100.\n")),
        ("keep a backup", lambda: shutil.copy(folder / "report.md", folder / "report.md.bak")),
        ("make an archive folder", lambda: (folder / "archive/2026").mkdir(parents=True)),
        ("file the ideas away", lambda: (folder / "notes/ideas.txt").rename(folder / "archive/2026/ideas.txt")),
        ("rename the report", lambda: (folder / "report.md").rename(folder / "spending-report.md")),
        ("scratch a temporary file", lambda: (folder / "scratch.tmp").write_text("totals: 6900\n", encoding="utf-8")),
        ("clean it up", lambda: (folder / "scratch.tmp").unlink()),
    ]
    done = []
    for name, action in steps:
        action()
        done.append(name)
        time.sleep(pause)
    return done


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)
