"""A reader of your own: it answers every multiple-choice item of every memory (the one shared reader).

    filegram eval ... --backend examples/my_reader.py:OverlapReader

Only the multiple-choice task is replaced; every other task (embeddings, summaries, judges) stays the offline
backend's. An API model would override the same method, or derive from `filegram_kit.llm.base.Backend`.
"""

import re

from filegram_kit.llm.offline import OfflineBackend

WORD = re.compile(r"\w+")


class OverlapReader(OfflineBackend):
    name = "overlap_reader"  # result rows and cache keys name the reader
    default_model = "overlap-v1"

    def _task_answer_mcq(self, question, choices, context):
        seen = set(WORD.findall(context.lower()))
        scores = []
        for choice in choices:  # the share of an option's words the context holds
            words = set(WORD.findall(choice.lower()))
            scores.append(len(words & seen) / max(1, len(words)))
        best = max(range(len(choices)), key=lambda k: scores[k])
        return {"index": best, "confidence": scores[best], "scores": scores}
