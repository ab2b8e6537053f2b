import json
import re
from collections import Counter

import pytest

from filegram_kit.traces.profiles import get_profile
from filegram_kit.traces.tasks import TaskDataError, get_task, load_tasks, normalize_task_id

MULTIMODAL = {"T-02", "T-07", "T-16", "T-19", *(f"T-{i}" for i in range(21, 33))}


def test_thirty_two_tasks_as_in_table10():
    tasks = load_tasks()
    assert list(tasks) == [f"T-{i:02d}" for i in range(1, 33)]
    assert {t.id for t in tasks.values() if t.multimodal} == MULTIMODAL
    assert Counter(t.type for t in tasks.values()) == {"understand": 6, "create": 6, "organize": 6,
                                                       "synthesize": 5, "iterate": 6, "maintain": 3}
    assert sum(t.n_inputs for t in tasks.values()) == 578
    assert {t.id for t in tasks.values() if t.n_inputs == 0} == {"T-03", "T-04", "T-20"}


def test_activated_dimensions_full_and_partial():
    assert get_task("T-03").dims_full == ("B",) and get_task("T-03").dims_partial == ("C", "E")
    assert get_task("T-10").dims_partial == ("C",) and "D" in get_task("T-10").dims_full
    assert set(get_task("T-18").dims) == set("ABCDEF")
    assert get_task("T-23").input_files == {"jpg": 17, "jpeg": 16, "png": 7}


def test_prompts_in_both_languages_and_persona_language_picks():
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for task in load_tasks().values():
        assert len(task.prompt_en.split()) >= 20 and not cjk.search(task.prompt_en)
        assert cjk.search(task.prompt_zh)
    task = get_task("T-09")
    assert task.prompt_for(get_profile("p1")) == task.prompt_zh  # Chen Wei writes Chinese
    assert task.prompt_for(get_profile("p3")) == task.prompt_en


@pytest.mark.parametrize(("raw", "norm"), [("T-05", "T-05"), ("t05", "T-05"), ("T5", "T-05"), (5, "T-05"),
                                           ("task 12", "T-12"), ("t-32", "T-32")])
def test_normalize_task_id(raw, norm):
    assert normalize_task_id(raw) == norm


def test_unknown_or_malformed_ids():
    with pytest.raises(ValueError, match="not a task id"):
        normalize_task_id("report")
    with pytest.raises(KeyError, match="unknown task"):
        get_task(40)


def test_bad_tasks_file_names_task_and_field(tmp_path):
    good = {"task_id": "T-01", "type": "create", "multimodal": False, "description": "d", "dims_full": ["B"],
            "dims_partial": [], "input_files": {}, "prompt_en": "p", "prompt_zh": "p"}
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({"tasks": [good, {**good, "task_id": "T-02", "type": "dance"}]}))
    with pytest.raises(TaskDataError, match=r"tasks.json: task 1: field 'type'"):
        load_tasks(path)
    path.write_text(json.dumps({"tasks": [{**good, "dims_full": ["B", "Z"]}]}))
    with pytest.raises(TaskDataError, match="task 0: fields 'dims_full'"):
        load_tasks(path)
    path.write_text(json.dumps({"tasks": [good, good]}))
    with pytest.raises(TaskDataError, match="duplicate id T-01"):
        load_tasks(path)


def test_activation_reads_the_task_s_full_and_partial_dimensions():
    from filegram_kit.traces.schema import DIMENSION_CODES

    for task in load_tasks().values():
        levels = {d: task.activation(d) for d in DIMENSION_CODES}
        assert {d for d, lv in levels.items() if lv == "full"} == set(task.dims_full)
        assert {d for d, lv in levels.items() if lv == "partial"} == set(task.dims_partial)
        assert {d for d, lv in levels.items() if lv == "none"} == set(DIMENSION_CODES) - set(task.dims)
