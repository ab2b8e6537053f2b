"""Real traces: record a real folder, import shell history and event logs, with privacy controls.

Every source yields `Observation`s (observations.py); `translate.write_sessions` turns them into the
release's trajectory layout, so real sessions load, clean and fingerprint exactly like the engine's (where a
user sits among the personas: `memory.filegramos.neighbours.persona_neighbours`).

    Recording(folder, out).start() ... .stop()      live, with watchdog (watcher.py)
    import_shell_history(path, root=...)            bash / zsh history (shell.py)
    import_event_log(path)                          a JSONL or CSV event log (eventlog.py)
"""

from .eventlog import import_event_log
from .journal import open_journals, recover
from .observations import OBSERVATION_KINDS, Observation, ObservationError, observations_frame
from .privacy import DEFAULT_IGNORE, DEFAULT_REDACTIONS, PrivacyPolicy
from .shell import import_shell_history
from .translate import split_sessions, write_sessions
from .watcher import Recording

__all__ = ["DEFAULT_IGNORE", "DEFAULT_REDACTIONS", "OBSERVATION_KINDS", "Observation", "ObservationError",
           "PrivacyPolicy", "Recording", "import_event_log", "import_shell_history", "open_journals",
           "observations_frame", "recover", "split_sessions", "write_sessions"]
