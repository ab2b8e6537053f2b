"""A memory system of your own, scored on FileGramBench beside the 13 built-in methods.

    filegram eval --items items.parquet --corpus data/corpus --out runs/mine \
        --methods examples/my_memory.py:HabitCounts,no_context,filegramos
"""

from collections import Counter

from filegram_kit.memory import Context, MemorySystem, check_no_ground_truth


class HabitCounts(MemorySystem):
    """Per session, what the user did most and what they wrote; the reader gets all of it (it is small)."""

    name = "habit_counts"

    def __init__(self, *, top: int = 4):
        super().__init__(top=top)  # the params go into result rows and cache keys
        self.top = top

    def ingest(self, trajs, *, backend):
        self.sessions_, totals = {}, Counter()
        for traj in check_no_ground_truth(trajs):  # refuses inputs that carry persona labels
            ops = Counter(e.event_type for e in traj.events if e.is_behavioral)
            kinds = Counter(e.get("file_type") for e in traj.events if e.event_type == "file_write")
            depth = max((e.get("depth", 0) for e in traj.events if e.event_type == "dir_create"), default=0)
            totals += ops
            self.sessions_[traj.label or traj.id] = (
                f"{', '.join(f'{op} x{n}' for op, n in ops.most_common(self.top))}; wrote "
                f"{', '.join(f'{k} x{n}' for k, n in kinds.most_common(self.top)) or 'nothing'}; "
                f"deepest new folder {depth}")
        self.overall_ = ", ".join(f"{op} x{n}" for op, n in totals.most_common(self.top))
        self.ingested_ = True
        return self

    def retrieve(self, query, *, backend):
        self._check_ingested()
        sessions = "\n".join(f"{label}: {text}" for label, text in self.sessions_.items())
        return Context.from_blocks({"Overall": self.overall_, "Sessions": sessions})

    def memory_text(self):
        return self.retrieve("", backend=None).text
