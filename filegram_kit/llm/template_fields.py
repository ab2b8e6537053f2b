"""What each typed task's prompt template is filled with: lists and maps rendered as readable text. The prompting
backends fill their templates with it, and the token estimate of any backend renders the same text."""

from __future__ import annotations

import json
from typing import Any

from .memory_tasks import MEMORY_TASKS
from .memory_tasks import prompt_fields as memory_fields
from .tasks import attribute_values, options_text, rubric_text


def template_fields(task: str, inputs: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """What a task's template is filled with (lists and maps rendered as readable text)."""
    if task in MEMORY_TASKS:
        return memory_fields(task, inputs, params)
    fields = {**inputs, **params}
    if task == "answer_mcq":
        fields["options"] = options_text(inputs["choices"])
    elif task in ("segment_episodes", "narrate_episode"):
        fields["items"] = "\n".join(f"{i}. {item}" for i, item in enumerate(inputs["items"]))
    elif task == "judge_likert":
        fields["rubric"] = rubric_text({int(k): v for k, v in inputs["rubric"].items()} or None)
    elif task == "judge_attribute":
        fields["label"] = inputs["attribute"].replace("_", " ")
        fields["values"] = attribute_values(inputs["attribute"])
    elif task == "judge_anomaly":
        for key in ("deviation", "task_shift"):
            fields[key] = json.dumps(inputs[key], sort_keys=True) if inputs[key] else "(none)"
    return fields
