"""filegram_kit: a workbench for memory and personalization research on file-system behavioral traces.

Start here:
    load_profiles() / load_tasks()        the 20 personas and 32 tasks of the FileGram paper
    sample_profiles(n, seed)              new synthetic personas
    perturbation_schedule()               which trajectories shift one dimension by one tier
    load_trajectories(path)               the release's on-disk layout -> Trajectory objects
    clean(trajs), events_frame(trajs)     behavioral events only -> one polars frame
    fingerprints(trajs)                   the 17-D procedural fingerprint per trajectory (paper Table 6)
"""

from .behaviour.fingerprint import fingerprints
from .traces.load import TraceError, clean, events_frame, load_trajectories, read_trajectory, save_trajectories
from .traces.profiles import get_profile, load_profiles, perturbation_schedule, sample_profiles
from .traces.schema import (
    ATTRIBUTES,
    DIMENSIONS,
    EVENT_TYPES,
    METADATA_EVENT_TYPES,
    RETAINED_EVENT_TYPES,
    Event,
    Profile,
    Task,
    Tier,
    Trajectory,
)
from .traces.tasks import get_task, load_tasks

__version__ = "0.1.0"

__all__ = [
    "ATTRIBUTES", "DIMENSIONS", "EVENT_TYPES", "METADATA_EVENT_TYPES", "RETAINED_EVENT_TYPES", "Event", "Profile",
    "Task", "Tier", "TraceError", "Trajectory", "clean", "events_frame", "fingerprints", "get_profile", "get_task",
    "load_profiles", "load_tasks", "load_trajectories", "perturbation_schedule", "read_trajectory",
    "sample_profiles", "save_trajectories",
]
