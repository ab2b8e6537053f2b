"""The PU command streams shipped with the package (data/pu/: 8 real users, provenance in its README).

    users = pu_trajectories(block=100)        # {"user1": [Trajectory, ...], ...}, blocks of 100 commands
    pu_table(stream_blocks(users))            # filegram_kit.behaviour.masquerade

The files' bytes are checked against SHA256SUMS before use: a result computed from altered data would look
exactly like one computed from the real data.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from ..record.commands import import_command_stream
from ..traces.schema import Trajectory

PU_DIR = Path(__file__).resolve().parents[1] / "data" / "pu"
PU_SUMS = "SHA256SUMS"


def pu_files(folder: str | Path = PU_DIR) -> dict[str, Path]:
    """user name ("user1" ...) -> its stream file, every file checked against the folder's SHA256SUMS."""
    folder = Path(folder)
    sums = folder / PU_SUMS
    if not sums.is_file():
        raise FileNotFoundError(f"{sums}: no checksum list (the PU data is shipped in filegram_kit/data/pu/)")
    files = {}
    for number, line in enumerate(sums.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        digest, _, name = line.partition("  ")
        path = folder / name.strip()
        if not path.is_file():
            raise FileNotFoundError(f"{sums}: line {number}: {path} is missing")
        found = hashlib.sha256(path.read_bytes()).hexdigest()
        if found != digest:
            raise ValueError(f"{path}: sha256 {found} differs from {sums} line {number} ({digest}): altered data")
        files[name.strip().lower()] = path
    return dict(sorted(files.items(), key=lambda kv: (len(kv[0]), kv[0])))


@lru_cache(maxsize=4)
def pu_trajectories(block: int = 100, folder: str = str(PU_DIR)) -> dict[str, tuple[Trajectory, ...]]:
    """Each PU user's stream as trajectories of `block` commands (`record.commands.import_command_stream`)."""
    return {user: tuple(import_command_stream(path, user=user, block=block).trajectories)
            for user, path in pu_files(folder).items()}
