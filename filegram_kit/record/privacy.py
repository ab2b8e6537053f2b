"""What the recorder may see: which paths are ignored and how much of a file's content is kept.

`PrivacyPolicy` settings (all optional; the defaults record text content of every file that is not
version-control, cache or editor machinery):

    ignore             gitignore-style patterns relative to the recorded root (ignore_rules.py has the
                       syntax). Ignored paths never reach the journal, not even their names. Defaults:
                       DEFAULT_IGNORE; extend them with `ignore=(*DEFAULT_IGNORE, "*.log")`.
    read_ignore_files  also obey a `.filegramignore` in any directory (patterns relative to that
                       directory; read lazily, re-read when the file changes). Default True.
    max_content_bytes  files larger than this keep hash and size but no content (default 1 MiB, the
                       media store's blob limit).
    metadata_only      never keep content. Hashes are still computed from the bytes on disk so that
                       copies can be told apart from new files (a 16-hex SHA-256 prefix of a whole file
                       cannot be read back into its text, but it can confirm a guessed file exactly).
    redact             regexes applied to kept text; each match becomes "[REDACTED]". None by default:
                       pass `redact=DEFAULT_REDACTIONS` (emails, API-key-like tokens, `password=...`)
                       or your own. The hash and size stay those of the bytes on disk.

Binary files (a NUL byte in the first 8 KiB, or not valid UTF-8) keep hash and size, no content.
Always ignored, whatever the patterns say: the recorder's output folder when it lies inside the
recorded folder, `.filegramignore` files (recorder configuration) and the recorder's fence files.
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from ..traces.media import HASH_LEN, MAX_BLOB_BYTES
from .ignore_rules import IGNORE_FILE, RuleTree, compile_rules

DEFAULT_IGNORE: tuple[str, ...] = (
    # version control and caches
    ".git/", ".hg/", ".svn/", "__pycache__/", "node_modules/", ".DS_Store",
    # editor swap, backup, lock and temp files (vim, emacs, LibreOffice, JetBrains, GNOME, Kate, Office)
    "*.swp", "*.swo", "*.swx", "*~", ".#*", r"\#*#", "4913", ".~lock.*#",
    "*___jb_tmp___", "*___jb_old___", ".goutputstream-*", "*.kate-swp", "~$*",
    # hidden atomic-save temp files (`.name.XXXX.tmp`, as filegram_kit.util.atomic writes them)
    ".*.tmp",
    # downloads in progress
    "*.crdownload", "*.part",
)
FENCE_PREFIX = ".filegram-fence-"
RECORDER_FILES: tuple[str, ...] = (IGNORE_FILE, FENCE_PREFIX + "*")

DEFAULT_REDACTIONS: tuple[str, ...] = (
    r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}",  # email addresses
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}",  # OpenAI / Anthropic style secret keys (sk-..., sk-proj-...)
    r"\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe
    r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key id
    r"\bgh[pousr]_[A-Za-z0-9]{30,}",  # GitHub tokens
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}",  # Slack tokens
    r"\bAIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"(?i)\b(?:api[_-]?key|secret|token|passw(?:or)?d)\b\s*[:=]\s*[\"']?[^\s\"']{8,}",  # key = value secrets
)
REDACTED = "[REDACTED]"
BINARY_SNIFF_BYTES = 8192
_CHUNK = 1 << 16


class Capture(NamedTuple):
    """What the recorder keeps of one file: text (or None), hash and size of the bytes on disk,
    why the text was withheld ("metadata_only" | "too_large" | "binary" | None) and redactions made."""

    content: str | None
    content_hash: str
    size: int
    withheld: str | None = None
    redactions: int = 0


@dataclass(frozen=True)
class PrivacyPolicy:
    """See the module docstring for each setting. `root` and `own` are set by the recorder (`bind`)."""

    ignore: tuple[str, ...] = DEFAULT_IGNORE
    read_ignore_files: bool = True
    max_content_bytes: int = MAX_BLOB_BYTES
    metadata_only: bool = False
    redact: tuple[str, ...] = ()
    root: Path | None = None
    own: tuple[str, ...] = ()  # recorder-owned directories relative to root (always ignored)
    _tree: RuleTree = field(init=False, repr=False, compare=False)
    _redact: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("ignore", "redact", "own"):
            value = getattr(self, name)
            if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                raise TypeError(f"PrivacyPolicy.{name}: expected a sequence of strings, got {value!r}")
            object.__setattr__(self, name, tuple(value))
        if isinstance(self.max_content_bytes, bool) or not isinstance(self.max_content_bytes, int) \
                or self.max_content_bytes < 0:
            raise ValueError(f"PrivacyPolicy.max_content_bytes: expected an int >= 0, got {self.max_content_bytes!r}")
        compiled = []
        for i, pattern in enumerate(self.redact):
            try:
                compiled.append(re.compile(pattern))
            except re.error as err:
                raise ValueError(f"PrivacyPolicy.redact[{i}] {pattern!r}: not a valid regex ({err})") from None
        object.__setattr__(self, "_redact", tuple(compiled))
        rules = compile_rules([*RECORDER_FILES, *self.ignore], source="PrivacyPolicy.ignore")
        root = Path(self.root) if self.root is not None else None
        object.__setattr__(self, "_tree", RuleTree(rules, root, read_ignore_files=self.read_ignore_files))

    def bind(self, root: str | Path, *, own: tuple[str, ...] = ()) -> PrivacyPolicy:
        """The same settings reading `.filegramignore` files under `root`, with recorder-owned dirs."""
        return replace(self, root=Path(root), own=tuple(o.strip("/") for o in own if o.strip("/")))

    # -- paths ---------------------------------------------------------------------------------
    def ignored(self, rel_path: str, is_dir: bool = False) -> bool:
        """True when `rel_path` (POSIX, relative to the root) must not be recorded."""
        rel = rel_path.strip("/")
        if any(rel == o or rel.startswith(o + "/") for o in self.own):
            return True
        return self._tree.ignored(rel, is_dir)

    def forget_ignore_file(self, directory: str) -> None:
        """`directory`'s .filegramignore changed: read it again next time."""
        self._tree.forget(directory)

    # -- content -------------------------------------------------------------------------------
    def capture(self, rel_path: str, data: bytes) -> tuple[str | None, str, int]:
        """(content, content_hash, size) of `data` read from `rel_path` under this policy."""
        c = self.capture_stream(rel_path, io.BytesIO(data))
        return c.content, c.content_hash, c.size

    def capture_stream(self, rel_path: str, fh: BinaryIO) -> Capture:
        """Hash a whole stream in chunks, keeping the bytes only while they may become content."""
        digest, kept, size = hashlib.sha256(), bytearray(), 0
        keep = not self.metadata_only
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
            if keep and size <= self.max_content_bytes:
                kept += chunk
        content_hash = digest.hexdigest()[:HASH_LEN]
        if self.metadata_only:
            return Capture(None, content_hash, size, "metadata_only")
        if size > self.max_content_bytes:
            return Capture(None, content_hash, size, "too_large")
        text = _as_text(bytes(kept))
        if text is None:
            return Capture(None, content_hash, size, "binary")
        text, count = self.redact_text(text)
        return Capture(text, content_hash, size, None, count)

    def capture_file(self, rel_path: str, path: str | Path) -> Capture:
        with open(path, "rb") as fh:
            return self.capture_stream(rel_path, fh)

    def redact_text(self, text: str) -> tuple[str, int]:
        """`text` with every match of the `redact` regexes replaced, and how many were replaced."""
        total = 0
        for pattern in self._redact:
            text, n = pattern.subn(REDACTED, text)
            total += n
        return text, total

    def describe(self) -> dict[str, Any]:
        """The settings as JSON (journal header); never the root's absolute path."""
        return {"ignore": list(self.ignore), "read_ignore_files": self.read_ignore_files,
                "max_content_bytes": self.max_content_bytes, "metadata_only": self.metadata_only,
                "redact": list(self.redact), "own": list(self.own)}


def _as_text(data: bytes) -> str | None:
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
