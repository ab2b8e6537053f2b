"""The project's own text, as one corpus: task descriptions and prompts, and every planned workspace document.

The LSA embedder (the offline backend's `embedder="lsa"` ablation, `llm/algorithms/embedding.py`) is
fitted on it. It lives here, beside the data it reads, so that `llm/` and `memory/` never import the
generator (`workspace/`, `engine/`): the dependency of that ablation on our generator's text is one
call into this module, made only when an LSA space is fitted.
"""

from __future__ import annotations

import functools
import re

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_ZH_CLAUSE = re.compile(r"[，；：。！？]")


@functools.cache
def reference_corpus() -> tuple[str, ...]:
    """The built-in corpus: task descriptions and prompts, and every workspace document's title and
    paragraphs (seed 0). Paragraphs are the documents, as in classic LSA: sentence-sized documents
    were measured to give noisier co-occurrence (paraphrase pairs less separated). The Chinese
    prompts are the only Chinese text, so they are split into clauses: 32 whole prompts gave one
    "Chinese" direction in which every Chinese text looked alike."""
    from .traces.tasks import load_tasks
    from .workspace import plan_workspace

    texts: list[str] = []
    for task in load_tasks().values():
        texts += [task.description, task.prompt_en, *_ZH_CLAUSE.split(task.prompt_zh)]
        for doc in plan_workspace(task, seed=0):
            texts += [doc.title, *_PARAGRAPH_BREAK.split(doc.text)]
    return tuple(dict.fromkeys(t.strip() for t in texts if len(t.strip()) > 3))
