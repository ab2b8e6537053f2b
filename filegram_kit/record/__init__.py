"""Real traces: record a real folder, import shell history and event logs, with privacy controls.

Every source yields `Observation`s (observations.py); `translate` turns them into the release's
trajectory layout, so real sessions load, clean and fingerprint exactly like the engine's.
"""

from .observations import OBSERVATION_KINDS, Observation, ObservationError

__all__ = ["OBSERVATION_KINDS", "Observation", "ObservationError"]
