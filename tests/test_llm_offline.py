"""The offline backend: every typed task answered by a real algorithm, through the cache."""

from __future__ import annotations

import numpy as np
import pytest

from filegram_kit.llm import get_backend
from filegram_kit.llm.cache import ResponseCache
from filegram_kit.llm.offline import AGENT_NOTES, explorer_step
from filegram_kit.llm.tasks import TASKS


@pytest.fixture(scope="module")
def offline():
    return get_backend("offline")


def test_embeddings_are_unit_rows_that_rank_the_related_text_first(offline):
    docs = ["The cat Shadow visited the vet for a vaccination.", "Quarterly revenue of TSMC rose 12 percent."]
    vectors = offline.embed(docs)
    query = offline.embed(["vet appointment for the cat"], input_type="query")[0]
    assert vectors.shape == (2, 256) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ query > vectors[1] @ query


def test_reader_and_judges_behave(offline):
    context = "The report was moved to archive/2024/report_final.md. Revenue grew 12% in Q3."
    answer = offline.answer_mcq("How much did revenue grow in Q3?", ["8%", "12%", "21%"], context)
    assert answer.index == 1 and answer.confidence == max(answer.scores) and len(answer.scores) == 3
    assert offline.judge_likert("Revenue grew 12% in Q3.", "Revenue grew 12% in Q3.").score == 5
    assert offline.judge_likert("Revenue grew 12% in Q3.", "Revenue grew 40% in Q3.").score <= 2
    q = "Describe this user's cleanup policy (what they do with old and temporary files)."
    assert offline.judge_attribute(q, "cleanup_policy", "Never delete", "The user never deletes anything.").score == 4
    assert offline.judge_attribute(q, "cleanup_policy", "Never delete", "Cleanup policy.").score == 1
    assert offline.judge_attribute(q, "cleanup_policy", "Never delete", "It purges temp files.").score == 1
    strong = {"dirs_created": 4.0, "max_dir_depth": 3.5, "files_moved": 3.2}
    assert offline.judge_anomaly(strong).label == "outlier"
    assert offline.judge_anomaly(strong, task_shift=strong).label == "variation"


def test_text_tasks(offline):
    text = ("Shadow was adopted on 3 March 2024. The vet found a mild ear infection on 12 May 2024. "
            "Shadow eats 60 grams of dry food a day. The weather was nice.")
    summary = offline.summarize(text, max_words=20)
    assert 0 < len(summary.split()) <= 20 and summary in text  # extractive: whole sentences of the text
    facts = offline.extract_facts(text)
    assert any("12 May 2024" in f for f in facts) and not any(f.startswith("The weather") for f in facts)
    assert offline.describe_style("# 标题\n\n这是一个测试文档。")["language"] == "zh"
    rephrased = offline.rephrase_question("Which file did the user create in notes/2024?")
    assert rephrased != "Which file did the user create in notes/2024?" and "notes/2024" in rephrased
    assert offline.segment_episodes(["read budget.csv"] * 4 + ["photo of the cat Shadow"] * 4) == [(0, 4), (4, 8)]


def test_offline_answers_are_cached_and_replayed(tmp_path):
    first = get_backend("offline", cache=ResponseCache(tmp_path, "use"))
    a = first.answer_mcq("Which city?", ["Paris", "Tokyo"], "The photo shows Mount Fuji near Tokyo.")
    replay = get_backend("offline", cache=ResponseCache(tmp_path, "replay"))
    b = replay.answer_mcq("Which city?", ["Paris", "Tokyo"], "The photo shows Mount Fuji near Tokyo.")
    assert a == b and replay.usage.total("cached") == 1 and replay.usage.total("calls") == 0


def test_the_offline_backend_answers_every_typed_task():
    missing = [task for task in TASKS if not hasattr(get_backend("offline"), f"_task_{task}")]
    assert missing == []


def _conversation(steps: list[tuple[dict, str]]) -> list[dict]:
    messages = [{"role": "user", "content": "Summarize this folder."}]
    for step, output in steps:
        messages.append({"role": "assistant", "content": step["text"], "tool_calls": step["tool_calls"]})
        call = step["tool_calls"][0]
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    return messages


def test_the_offline_agent_explores_reads_writes_then_stops():
    outputs = {"ls": "a.md\nb.txt\nsub/", "read": "    1\tRevenue grew 12% in Q3 for TSMC.", "write": "Created"}
    steps: list[tuple[dict, str]] = []
    for _ in range(10):
        step = explorer_step(_conversation(steps))
        if not step["tool_calls"]:
            break
        steps.append((step, outputs[step["tool_calls"][0]["name"]]))
    names = [s["tool_calls"][0]["name"] for s, _ in steps]
    assert names == ["ls", "read", "read", "write"]
    assert [s["tool_calls"][0]["arguments"].get("file_path") for s, _ in steps][1:] == ["a.md", "b.txt", AGENT_NOTES]
    assert "12%" in steps[-1][0]["tool_calls"][0]["arguments"]["content"]
    assert "Done" in step["text"]


def test_backend_settings_are_part_of_the_cache_key(tmp_path):
    cache = ResponseCache(tmp_path, "use")
    small = get_backend("offline", dim=64, cache=cache).embed(["the cat Shadow"])
    large = get_backend("offline", dim=256, cache=cache).embed(["the cat Shadow"])
    assert small.shape == (1, 64) and large.shape == (1, 256) and cache.stores == 2


def test_open_answers_come_from_the_context(offline):
    context = "Shadow was adopted on 3 March 2024. The photos are in pets/shadow/. Revenue rose 12%."
    answer = offline.answer_open("When was Shadow adopted?", context, max_words=15)
    assert "3 March 2024" in answer and len(answer.split()) <= 15


def test_offline_image_embeddings_see_what_the_image_says(offline, tmp_path):
    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    def png(caption: str) -> bytes:
        info = PngInfo()
        info.add_text("Description", caption)
        path = tmp_path / f"{abs(hash(caption))}.png"
        Image.new("RGB", (8, 8)).save(path, pnginfo=info)
        return path.read_bytes()

    rows = offline.embed_images([png("Mount Fuji at sunrise over the lake"), png("quarterly revenue bar chart")])
    query = offline.embed(["photo of Mount Fuji"], input_type="query")[0]
    assert rows.shape == (2, 256) and rows[0] @ query > rows[1] @ query
