"""The traces core: the data model, personas and tasks, loading / validating / cleaning trajectories,
event frames, media stores, and the workspace documents' formats."""
