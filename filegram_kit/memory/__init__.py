"""Memory systems behind one protocol (base.py): FileGramOS and the baselines, registered by name."""

from .base import Context, GroundTruthError, MemorySystem, check_no_ground_truth, get_memory, register_memory

__all__ = ["Context", "GroundTruthError", "MemorySystem", "check_no_ground_truth", "get_memory", "register_memory"]
