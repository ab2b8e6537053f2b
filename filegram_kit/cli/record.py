"""`filegram record`, `filegram recover`, `filegram import shell|commands|log` and `filegram neighbours`: real traces.

Every command writes the release layout (OUT/signal/<name>_<YYYYMMDD-HHMMSS>/) and prints, per
trajectory written, its behavioral events by type, so `filegram fingerprint OUT` can follow at once.
"""

from __future__ import annotations

import argparse
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import polars as pl

from ..traces.schema import EVENT_CATEGORY, RETAINED_EVENT_TYPES
from .output import emit as _emit

ATOMIC_ACTIONS = tuple(t for t in RETAINED_EVENT_TYPES if EVENT_CATEGORY[t] != "flow")  # derived flow events left out


def written_table(paths: list[Path]) -> pl.DataFrame:
    """One row per trajectory folder: id, span in minutes, behavioral events by type."""
    from ..traces.load import read_trajectory

    rows = []
    for path in paths:
        traj = read_trajectory(path)
        counts = Counter(e.event_type for e in traj.events)
        times = [e.timestamp for e in traj.events if e.is_behavioral] or [0.0]
        rows.append({"trajectory": traj.id, "minutes": round((max(times) - min(times)) / 60_000, 1),
                     **{c: counts.get(c, 0) for c in ATOMIC_ACTIONS}})
    return pl.DataFrame(rows)


def _report_written(paths: list[Path], out: Path) -> None:
    if not paths:
        print(f"nothing happened: no trajectory written to {out}")
        return
    _emit(written_table(paths), "table")
    print(f"wrote {len(paths)} trajectory folder(s) under {out / 'signal'}; next: filegram fingerprint {out}")


def _policy(args: argparse.Namespace):
    from ..record import DEFAULT_IGNORE, DEFAULT_REDACTIONS, PrivacyPolicy

    redact = (*(DEFAULT_REDACTIONS if args.redact_defaults else ()), *args.redact)
    return PrivacyPolicy(ignore=(*DEFAULT_IGNORE, *args.ignore), max_content_bytes=args.max_bytes,
                         metadata_only=args.metadata_only, redact=redact)


def _describe(obs) -> str:
    stamp = datetime.fromtimestamp(obs.time_ms / 1000).strftime("%H:%M:%S")
    target = f" -> {obs.dest}" if obs.dest else ""
    size = f" ({obs.size} bytes)" if obs.size is not None and obs.kind == "write" else ""
    return f"{stamp}  {obs.kind:<7} {obs.path}{target}{size}"


class _Stopped(Exception):
    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextmanager
def _signals_stop() -> Iterator[Callable[[], None]]:
    """SIGTERM (a service manager) and SIGHUP (a closed terminal) stop a recording as Ctrl-C does: they raise
    `_Stopped` in the main thread. The callable given ignores them from then on until the block ends (call it
    before finalising, which no signal may cut); the first one does so too."""
    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]

    def shield() -> None:
        for name in names:
            signal.signal(getattr(signal, name), signal.SIG_IGN)

    def stop(signum: int, frame: object) -> None:
        shield()
        raise _Stopped(signum)

    previous = {name: signal.signal(getattr(signal, name), stop) for name in names}
    try:
        yield shield
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


def cmd_record(args: argparse.Namespace) -> int:
    from ..record import Recording

    rec = Recording(args.folder, args.out, policy=_policy(args), name=args.name, idle_gap_ms=args.idle_gap * 60_000,
                    debounce_ms=args.debounce, backend=args.backend, poll_interval=args.poll_interval).start()
    if rec.recovered:
        print(f"finalised {len(rec.recovered)} trajectory folder(s) an earlier, interrupted recording left")
    shown = sum(o.kind == "baseline" for o in rec.observations)
    print(f"recording {rec.folder} ({shown} files and folders already there) into {rec.out}; "
          f"reads are {'observed' if rec.status()['reads_observed'] else 'not observed on this platform'}. "
          + ("Ctrl-C to stop." if args.duration is None else f"Stopping after {args.duration:g} s."))
    deadline = None if args.duration is None else time.monotonic() + args.duration
    with _signals_stop() as shield:
        try:
            while deadline is None or time.monotonic() < deadline:
                time.sleep(0.5)
                new = rec.observations[shown:]
                shown += len(new)
                if not args.quiet:
                    for obs in new:
                        print(_describe(obs), flush=True)
        except KeyboardInterrupt:
            print()
        except _Stopped as stop:
            print(f"\n{signal.Signals(stop.signum).name}: stopping", flush=True)
        shield()
        paths = rec.stop()
    status = rec.status()
    if status["skipped"] or status["errors"]:
        print(f"not recorded: {status['skipped']}; observer errors: {status['errors']}")
    _report_written(paths, rec.out)
    return 0


def cmd_recover(args: argparse.Namespace) -> int:
    from ..record import open_journals, recover

    pending = open_journals(args.out)
    if not pending:
        print(f"{args.out}: no unfinished recording")
        return 0
    _report_written(recover(args.out), args.out)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from ..record import import_event_log, import_shell_history, write_sessions

    if args.source == "commands":
        return _import_commands(args)
    if args.source == "shell":
        if args.root is None:
            raise ValueError("import shell needs --root DIR: the folder whose files the history is about")
        start = None if args.start is None else datetime.fromisoformat(args.start).timestamp() * 1000
        result = import_shell_history(args.file, root=args.root, home=args.home, cwd=args.cwd, shell=args.shell,
                                      start_ms=start, spacing_ms=args.spacing * 1000)
    else:
        result = import_event_log(args.file, root=args.root, format=args.log_format,
                                  errors="collect" if args.collect_errors else "raise",
                                  outside="skip" if args.skip_outside else "error")
    print(result.report)
    paths = write_sessions(result.observations, args.out, name=args.name, idle_gap_ms=args.idle_gap * 60_000)
    _report_written(paths, args.out)
    return 0


def _import_commands(args: argparse.Namespace) -> int:
    from ..record.commands import import_command_stream, write_command_trajectories

    start = 0.0 if args.start is None else datetime.fromisoformat(args.start).timestamp() * 1000
    result = import_command_stream(args.file, user=args.name, block=args.block or None, start_ms=start,
                                   spacing_ms=args.spacing * 1000)
    print(result.report)
    _report_written(write_command_trajectories(result, args.out), args.out)
    return 0


def cmd_neighbours(args: argparse.Namespace) -> int:
    from ..behaviour.fingerprint import fingerprints
    from ..memory.filegramos.neighbours import persona_neighbours
    from ..report.corpus_source import ground_truth, resolve_corpus
    from ..traces.load import clean, load_trajectories

    mine = fingerprints(clean(load_trajectories(args.path)).trajectories)
    corpus = resolve_corpus(args.corpus)
    personas, _ = ground_truth(corpus)
    theirs = fingerprints(clean(load_trajectories(corpus, check_media=False)).trajectories)
    table = persona_neighbours(mine, theirs, personas, k=args.k)
    _emit(table.drop("features"), args.format)
    return 0


def _add_record_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", default="me", help="profile id of the recorded user (default: me)")
    p.add_argument("--idle-gap", type=float, default=30.0, metavar="MIN", help="a pause longer than this starts a "
                   "new session, i.e. a new trajectory (default 30 min)")


def add_record(sub, fmt: argparse.ArgumentParser) -> None:
    p = sub.add_parser("record", help="record a real folder's file operations (watchdog) into the trajectory layout")
    p.add_argument("folder", type=Path, help="the folder to watch (recursively)")
    p.add_argument("--out", type=Path, required=True, help="where trajectories (OUT/signal/) and journals go")
    _add_record_options(p)
    p.add_argument("--duration", type=float, metavar="S", help="stop after S seconds (default: at Ctrl-C)")
    p.add_argument("--debounce", type=float, default=1000.0, metavar="MS", help="repeated reports of one change "
                   "within MS collapse (default 1000)")
    p.add_argument("--metadata-only", action="store_true", help="keep no file content (hashes and sizes only)")
    p.add_argument("--max-bytes", type=int, default=1_048_576, help="files larger than this keep no content")
    p.add_argument("--ignore", action="append", default=[], metavar="PATTERN", help="gitignore-style pattern to "
                   "skip, on top of the defaults (.git/, swap files, ...); repeatable")
    p.add_argument("--redact", action="append", default=[], metavar="REGEX", help="replace matches in kept "
                   "content by [REDACTED]; repeatable")
    p.add_argument("--redact-defaults", action="store_true", help="also redact emails, API-key-like tokens, "
                   "password=...")
    p.add_argument("--backend", choices=("auto", "inotify", "native", "polling"), default="auto",
                   help="watchdog observer (polling for network drives)")
    p.add_argument("--poll-interval", type=float, default=1.0, metavar="S")
    p.add_argument("--quiet", action="store_true", help="do not print observations as they arrive")
    p.set_defaults(func=cmd_record)

    p = sub.add_parser("recover", help="finalise recordings that a crash or kill left unfinished in OUT")
    p.add_argument("out", type=Path, help="the --out folder of `filegram record`")
    p.set_defaults(func=cmd_recover)

    p = sub.add_parser("import", help="turn a shell history, a command stream or an event log into trajectories")
    p.add_argument("source", choices=("shell", "commands", "log"), help="shell: bash/zsh history; commands: one "
                   "command name per line (e.g. the PU data); log: JSONL or CSV events")
    p.add_argument("file", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--root", type=Path, help="shell: the folder whose files count (required); log: folder that "
                   "absolute paths are made relative to")
    _add_record_options(p)
    shell = p.add_argument_group("shell history")
    shell.add_argument("--shell", choices=("auto", "bash", "zsh"), default="auto")
    shell.add_argument("--home", type=Path, help="what ~ means (default: your home)")
    shell.add_argument("--cwd", type=Path, help="working directory of the first command (default: --root)")
    shell.add_argument("--start", metavar="ISO", help="time of the first command when the history has none")
    shell.add_argument("--spacing", type=float, default=10.0, metavar="S", help="seconds between commands "
                       "without a time (default 10)")
    commands = p.add_argument_group("command stream (--start and --spacing too)")
    commands.add_argument("--user", dest="name", default=argparse.SUPPRESS, help="the user's name (same as --name)")
    commands.add_argument("--block", type=int, default=100, metavar="N", help="commands per trajectory (default "
                          "100; 0: one trajectory per session, between **SOF** / **EOF** markers)")
    log = p.add_argument_group("event log")
    log.add_argument("--log-format", choices=("auto", "jsonl", "csv"), default="auto")
    log.add_argument("--collect-errors", action="store_true", help="import the good rows, list the bad ones")
    log.add_argument("--skip-outside", action="store_true", help="skip absolute paths outside --root")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("neighbours", parents=[fmt], help="per dimension: your L/M/R reading and the nearest "
                       "personas of a corpus")
    p.add_argument("path", type=Path, help="your trajectories (the --out of record/import)")
    p.add_argument("--corpus", type=Path, help="persona corpus (default: data/corpus)")
    p.add_argument("--k", type=int, default=3, help="personas per dimension (default 3)")
    p.set_defaults(func=cmd_neighbours)
