"""Text generation for workspace documents: one `Composer` per task draws everything from one rng.

The Composer fills theme templates (`{person}`, `{org2}`, `{date}`, `{money}`, ...) and writes the
text of each document kind: notes (md/txt), emails (RFC 5322), calendars (iCalendar), tables,
reports, slides, and the captions/transcripts that binary media carry as metadata. For text formats
`InputFile.text` is the file itself; for binary formats it is a light markup the encoders render
(`## ` headings, `- ` bullets, `[sheet NAME]` blocks) and that `documents.read_text` gives back.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import textwrap
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime

import numpy as np

from .themes import Theme

KIND_OF_EXT = {
    "md": "note", "txt": "note", "tmp": "note", "bak": "note", "log": "note", "eml": "email", "ics": "event",
    "csv": "table", "xlsx": "table", "json": "record", "pdf": "report", "docx": "report", "pptx": "slides",
    "png": "image", "jpg": "image", "jpeg": "image", "gif": "image", "mp3": "audio", "mp4": "video", "mkv": "video",
}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
HEADINGS = ("Summary", "Key points", "Details", "Open questions", "Next steps", "Background", "Numbers",
            "Risks", "Decisions", "Follow-ups")
CAMERA = {"image": ("IMG_{n:04d}", "DSC_{n:04d}", "PXL_{d}_{t}", "Photo {d2}"),
          "video": ("VID_{d}_{t}", "MOV_{n:04d}", "PXL_{d}_{t}")}
MESSY = ("{T}", "Copy of {T}", "{T} (1)", "{s}_FINAL", "{s}-v2", "{s}_old", "{T} copy", "new {s}", "{S}")


@dataclass(frozen=True)
class InputFile:
    """One file of a task workspace, as planned before any bytes are written.

    `text` is what a reader learns from the file; `motif` picks the drawing of images/videos;
    `flags` name planted properties ("duplicate-of:<path>", "temporary", "planted-error:...").
    """

    path: str
    ext: str
    title: str
    text: str
    kind: str = "note"
    motif: str = ""
    flags: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:48] or "file"


def csv_text(rows: list[list[str]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


class _Slots(dict):
    """Template slots drawn on first use, so `{org}` twice in one template is the same company."""

    def __init__(self, composer: Composer, fixed: dict[str, str]):
        super().__init__(fixed)
        self.composer = composer

    def __missing__(self, key: str) -> str:
        if key in ("date", "iso"):  # one template, one day: "Diary 2024-03-12" is about 12 March 2024
            day = self.setdefault("_day", self.composer.day())
            value = day.isoformat() if key == "iso" else f"{day.day} {MONTHS[day.month - 1]} {day.year}"
            self[key] = value
            return value
        value = self.composer.draw(key, self)
        self[key] = value
        return value


class Composer:
    """Draws a task's themed text from one seeded generator (same seed, same workspace)."""

    def __init__(self, theme: Theme, rng: np.random.Generator):
        self.theme, self.rng = theme, rng
        self.pools: dict[str, tuple[str, ...]] = dict(theme.slots)
        self.paths: set[str] = set()
        self.titles: set[str] = set()
        self.motifs: frozenset[str] | None = None  # restrict image/video pools to these motifs
        self.world: dict[str, str] = {}  # values of the theme's once-per-task slots
        self.media_used: set[str] = set()

    def with_theme(self, theme: Theme) -> Composer:
        """A composer for another theme that shares this one's rng and taken names (mixed folders)."""
        other = Composer(theme, self.rng)
        other.paths, other.titles = self.paths, self.titles
        return other

    # -- drawing -------------------------------------------------------------------------------
    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def sample(self, seq, k: int) -> list:
        return [seq[i] for i in self.rng.choice(len(seq), size=min(k, len(seq)), replace=False)]

    def focus(self, slot: str, n: int) -> tuple[str, ...]:
        """Narrow a slot to n values for the whole task (e.g. the three companies a folder tracks)."""
        self.pools[slot] = tuple(self.sample(self.pools[slot], n))
        return self.pools[slot]

    def day(self) -> dt.date:
        return dt.date(self.theme.year, 1, 1) + dt.timedelta(days=int(self.rng.integers(0, 365)))

    def draw(self, key: str, taken: dict[str, str]) -> str:
        if key in self.theme.world:
            if key not in self.world:
                self.world[key] = self.draw(key + "_", taken)
            return self.world[key]
        base = key.rstrip("0123456789_")
        if base in self.pools:
            others = [v for v in self.pools[base] if v not in {taken.get(base), taken.get(base + "2")}]
            return self.pick(others or self.pools[base])
        return self._builtin(base)

    def _builtin(self, base: str) -> str:
        r, th = self.rng, self.theme
        if base in ("date", "adopted"):
            d = self.day()
            return f"{d.day} {MONTHS[d.month - 1]} {d.year}"
        if base == "iso":
            return self.day().isoformat()
        if base == "money":
            lo, hi, suffix = th.money
            v = float(r.uniform(lo, hi))
            return f"{th.currency}{v:.1f}{suffix}" if suffix else f"{th.currency}{round(v, -1 if v < 1e4 else -2):,.0f}"
        simple = {"pct": lambda: f"{r.uniform(1, 40):.1f}", "num": lambda: str(int(r.integers(2, 120))),
                  "small": lambda: str(int(r.integers(2, 13))),
                  "quarter": lambda: f"Q{int(r.integers(1, 5))}", "year": lambda: str(th.year),
                  "kg": lambda: f"{r.uniform(3.2, 5.4):.1f}", "currency": lambda: th.currency,
                  "time": lambda: f"{int(r.integers(8, 19)):02d}:{int(r.choice([0, 15, 30, 45])):02d}"}
        if base not in simple:
            raise KeyError(f"theme {th.name!r} has no slot {{{base}}}")
        return simple[base]()

    def fill(self, template: str, **fixed: str) -> str:
        return template.format_map(_Slots(self, fixed))

    def sentences(self, n: int, **fixed: str) -> list[str]:
        pool = self.theme.sentences
        order = [pool[i] for i in self.rng.permutation(len(pool))]
        return [self.fill(order[i % len(order)], **fixed) for i in range(n)]

    def title(self, kind: str, **fixed: str) -> str:
        return self.titled(kind, **fixed)[0]

    def titled(self, kind: str, **fixed: str) -> tuple[str, dict[str, str]]:
        """A title for a new document of this kind, distinct from earlier ones in the task, and the slots
        to keep for its body (the organisation it names), so that a report on one case stays on that case."""
        pool = self.theme.titles.get(kind) or self.theme.titles["note"]
        for _ in range(12):
            slots = _Slots(self, fixed)
            title = self.pick(pool).format_map(slots)
            title = title[:1].upper() + title[1:]
            if title not in self.titles:
                break
        n = 2
        while title in self.titles:
            title, n = f"{title.rstrip(' 0123456789')} {n}", n + 1
        self.titles.add(title)
        pinned = {k: v for k, v in slots.items() if k == "org"}
        if "_day" in slots:  # a dated title ("Diary 2024-03-12") dates its document the same day
            pinned["when"] = f"{slots['_day'].day} {MONTHS[slots['_day'].month - 1]} {slots['_day'].year}"
        return title, pinned

    # -- documents -----------------------------------------------------------------------------
    def note(self, title: str, ext: str = "md", sections: int | None = None, **fixed: str) -> str:
        """A note with a title line, a date line and 2-4 sections of bullets or prose."""
        n = sections or int(self.rng.integers(2, 5))
        author, when = self.fill("{person}", **fixed), fixed.get("when") or self.fill("{date}")
        head = [f"# {title}", "", f"Updated {when} by {author}"] if ext == "md" else \
               [title, "=" * len(title), f"Date: {when}", f"Author: {author}"]
        lines = head
        for heading in self.sample(HEADINGS, n):
            body = self.sentences(int(self.rng.integers(3, 6)), **fixed)
            lines += ["", f"## {heading}" if ext == "md" else f"{heading}:"]
            if self.rng.random() < 0.6:
                lines += [("- " if ext == "md" else "  * ") + s for s in body]
            else:
                lines += [" ".join(body)]
        return "\n".join(lines) + "\n"

    def email(self, subject: str, **fixed: str) -> str:
        """An RFC 5322 message with deterministic Date and Message-ID headers."""
        sender, to = self.fill("{person}|{person2}", **fixed).split("|")
        dom = self.theme.domain
        d = self.day()
        stamp = dt.datetime(d.year, d.month, d.day, int(self.rng.integers(8, 19)), int(self.rng.integers(0, 60)),
                            tzinfo=dt.timezone(dt.timedelta(hours=8)))
        msg = EmailMessage()
        msg["From"] = f"{sender} <{slug(sender).replace('_', '.')}@{dom}>"
        msg["To"] = f"{to} <{slug(to).replace('_', '.')}@{dom}>"
        msg["Subject"] = subject
        msg["Date"] = format_datetime(stamp)
        msg["Message-ID"] = f"<{int(self.rng.integers(1 << 40)):010x}.{d.isoformat()}@{dom}>"
        body = self.sentences(int(self.rng.integers(3, 7)), **fixed)
        first = to if to.split()[0].endswith(".") or not to[0].isupper() else to.split()[0]
        paras = [f"Hi {first},", textwrap.fill(" ".join(body[:2]), 76), textwrap.fill(" ".join(body[2:]), 76),
                 f"Best,\n{sender}"]
        text = "\n\n".join(paras) + "\n"
        msg.set_content(text, cte="7bit" if text.isascii() else "8bit")
        return msg.as_string()

    def calendar(self, title: str, events: int | None = None, **fixed: str) -> str:
        """An iCalendar file with 1-3 VEVENTs; DTSTAMP and UIDs are fixed by the seed, not the clock."""
        lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//filegram_kit//workspace//EN", "CALSCALE:GREGORIAN",
                 f"X-WR-CALNAME:{_ics_escape(title)}"]
        for i in range(events or int(self.rng.integers(1, 4))):
            d, hour = self.day(), int(self.rng.integers(8, 18))
            start = dt.datetime(d.year, d.month, d.day, hour, int(self.rng.choice([0, 30])))
            summary = title if i == 0 else self.fill(self.pick(self.theme.titles["event"]), **fixed)
            lines += ["BEGIN:VEVENT", f"UID:{int(self.rng.integers(1 << 40)):010x}-{i}@{self.theme.domain}",
                      f"DTSTAMP:{self.theme.year}0101T000000Z", f"DTSTART:{start:%Y%m%dT%H%M%S}",
                      f"DTEND:{start + dt.timedelta(hours=1):%Y%m%dT%H%M%S}", f"SUMMARY:{_ics_escape(summary)}",
                      f"LOCATION:{_ics_escape(self.fill('{place}', **fixed))}",
                      f"DESCRIPTION:{_ics_escape(self.sentences(1, **fixed)[0])}", "END:VEVENT"]
        lines.append("END:VCALENDAR")
        return "".join(_ics_fold(line) + "\r\n" for line in lines)

    def rows(self, n: int | None = None, columns=None, **fixed: str) -> list[list[str]]:
        cols = columns or self.theme.columns
        body = [[self.fill(tpl, **fixed) for _, tpl in cols] for _ in range(n or int(self.rng.integers(8, 21)))]
        if cols and cols[0][1] in ("{iso}", "{date}"):
            body.sort(key=lambda row: row[0])
        return [[h for h, _ in cols], *body]

    def sheet(self, title: str, sheets: dict[str, list[list[str]]] | None = None, **fixed: str) -> str:
        """xlsx markup: `[sheet NAME]` blocks of CSV rows; the first sheet starts with the title row."""
        sheets = sheets or {"Sheet1": self.rows(**fixed)}
        blocks = []
        for i, (name, rows) in enumerate(sheets.items()):
            blocks.append(f"[sheet {name}]\n" + csv_text(([[title], []] if i == 0 else []) + rows))
        return "\n".join(blocks)

    def report(self, title: str, sections: int | None = None, **fixed: str) -> str:
        """Report markup: title, a byline, then `## ` sections of prose and bullets."""
        when = fixed.get("when") or self.fill("{date}")
        lines = [title, "", f"Prepared by {self.fill('{person}', **fixed)}, {when}"]
        for heading in self.sample(HEADINGS, sections or int(self.rng.integers(2, 5))):
            lines += ["", f"## {heading}", " ".join(self.sentences(int(self.rng.integers(2, 5)), **fixed))]
            if self.rng.random() < 0.5:
                lines += ["- " + s for s in self.sentences(int(self.rng.integers(2, 4)), **fixed)]
        return "\n".join(lines) + "\n"

    def slides(self, title: str, **fixed: str) -> str:
        lines = [title, "", self.fill("{person}, {date}", **fixed)]
        for heading in self.sample(HEADINGS, int(self.rng.integers(3, 6))):
            lines += ["", f"## {heading}"] + ["- " + s for s in self.sentences(int(self.rng.integers(2, 4)), **fixed)]
        return "\n".join(lines) + "\n"

    def chat(self, title: str, **fixed: str) -> str:
        """An exported chat log: timestamped messages between two people ("Chat with X" has X in it)."""
        partner = title.removeprefix("Chat with ") if title.startswith("Chat with ") else None
        a, b = self.fill("{person}|{person2}", **({"person": partner} if partner else {})).split("|")
        d, n = self.day(), int(self.rng.integers(8, 16))
        minutes = 9 * 60 + np.cumsum(self.rng.integers(1, 25, size=n))
        lines = [title, ""]
        for i, (text, m) in enumerate(zip(self.sentences(n, **fixed), minutes, strict=True)):
            lines.append(f"[{d.isoformat()} {m // 60:02d}:{m % 60:02d}] {(b, a)[i % 2]}: {text}")
        return "\n".join(lines) + "\n"

    def record(self, title: str, **fixed: str) -> str:
        import json

        rows = self.rows(**fixed)
        items = [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]
        return json.dumps({"title": title, "items": items}, indent=2) + "\n"

    def media(self, kind: str, ext: str, **fixed: str) -> tuple[str, str, str]:
        """(title, description or transcript, motif) for an image, audio or video file."""
        if kind == "audio" and self.theme.audio:
            pool = [(title, text, "tone") for title, text in self.theme.audio]
        elif kind == "audio":
            title, pinned = self.titled("audio", **fixed)
            return title, " ".join(self.sentences(int(self.rng.integers(2, 4)), **{**pinned, **fixed})), "tone"
        else:
            pool = self.theme.videos if kind == "video" else self.theme.images
        if kind == "image":  # GIF entries are animated clips: only for .gif files
            pool = [p for p in pool if p[0].startswith("GIF") == (ext == "gif")] or list(pool)
        if self.motifs:
            pool = [p for p in pool if p[2] in self.motifs] or list(pool)
        fresh = [p for p in pool if p[0] not in self.media_used]  # use every entry before repeating one
        tpl_title, tpl_desc, motif = self.pick(fresh or pool)
        self.media_used.add(tpl_title)
        slots = _Slots(self, fixed)
        title = tpl_title.format_map(slots)
        n = 2
        while title in self.titles:
            title, n = f"{tpl_title.format_map(slots)} {n}", n + 1
        self.titles.add(title)
        return title, tpl_desc.format_map(slots), motif

    def text_for(self, kind: str, ext: str, title: str, **fixed: str) -> str:
        if kind == "note":
            return self.note(title, "md" if ext == "md" else "txt", **fixed)
        makers = {"email": self.email, "event": self.calendar, "report": self.report, "slides": self.slides,
                  "record": self.record, "chat": self.chat}
        if kind == "table":
            return csv_text(self.rows(**fixed)) if ext == "csv" else self.sheet(title, **fixed)
        return makers[kind](title, **fixed)

    # -- files ---------------------------------------------------------------------------------
    def file(self, ext: str, *, title: str | None = None, text: str | None = None, path: str | None = None,
             folder: str = "", naming: str = "clean", kind: str | None = None, flags: tuple[str, ...] = (),
             **fixed: str) -> InputFile:
        """Plan one file: title, text and path are generated unless given."""
        kind = kind or KIND_OF_EXT.get(ext, "note")
        if kind == "note" and ext == "txt" and title is None and text is None and self.rng.random() < 0.3:
            kind, title = "chat", self.fill(self.pick(("Chat with {person}", "Chat export {iso}")), **fixed)
        motif = ""
        if kind in ("image", "audio", "video") and text is None:
            drawn_title, text, motif = self.media(kind, ext, **fixed)
            title = title or drawn_title
        if title is None:
            title, pinned = self.titled("table" if kind == "table" else kind, **fixed)
            fixed = {**pinned, **fixed}
        if text is None:
            text = self.text_for(kind, ext, title, **fixed)
        motif = motif or {"image": "chart", "video": "landscape", "audio": "tone"}.get(kind, "")
        return InputFile(self.claim(path or self.name_for(title, ext, folder, naming)), ext, title, text, kind,
                         motif, flags)

    def name_for(self, title: str, ext: str, folder: str = "", naming: str = "clean") -> str:
        """A file name in the task's naming style: clean snake_case, messy human names, camera names, or a
        mix of all three (what a folder accumulates over years)."""
        if naming == "mixed":
            media = KIND_OF_EXT.get(ext) in ("image", "video")
            naming = self.pick(("camera", "messy") if media else ("messy", "clean"))
        s = slug(title)
        if naming == "camera" and KIND_OF_EXT.get(ext) in ("image", "video"):
            d = self.day()
            h, m, sec = (int(self.rng.integers(*bounds)) for bounds in ((8, 20), (0, 60), (0, 60)))
            t = f"{h:02d}{m:02d}{sec:02d}"
            stem = self.pick(CAMERA[KIND_OF_EXT[ext]]).format(n=int(self.rng.integers(1, 9999)), d=f"{d:%Y%m%d}", t=t,
                                            d2=f"{d:%Y-%m-%d} {t[:2]}.{t[2:4]}.{t[4:]}")
        elif naming == "messy":
            stem = self.pick(MESSY).format(T=title[:40].strip(), s=s[:30], S=s[:24].upper())
        else:
            stem = s
        stem = stem.replace("/", "-").replace(":", "")
        return f"{folder.strip('/')}/{stem}.{ext}" if folder else f"{stem}.{ext}"

    def claim(self, path: str) -> str:
        """Reserve a path, adding _2, _3 ... when the name is taken."""
        stem, dot, ext = path.rpartition(".")
        candidate, n = path, 2
        while candidate.lower() in self.paths:
            candidate, n = f"{stem}_{n}{dot}{ext}", n + 1
        self.paths.add(candidate.lower())
        return candidate


def _ics_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def _ics_fold(line: str, width: int = 74) -> str:
    """RFC 5545 folding: lines longer than 75 octets continue on lines starting with a space."""
    parts = [line[:width]] + [line[i:i + width - 1] for i in range(width, len(line), width - 1)]
    return "\r\n ".join(parts)
