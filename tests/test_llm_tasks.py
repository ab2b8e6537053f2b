"""Typed tasks: tolerant parsing, prompt rendering, usage accounting and the backend registry."""

from __future__ import annotations

import pytest

from filegram_kit.llm.base import BACKENDS, Backend, Computed, get_backend, register_backend
from filegram_kit.llm.prompting import Completion, PromptBackend
from filegram_kit.llm.tasks import (
    TASKS,
    ParseError,
    parse_anomaly,
    parse_boundaries,
    parse_choice,
    parse_facts,
    parse_json,
    parse_likert,
)


@pytest.mark.parametrize("reply", [
    '{"score": 4, "rationale": "ok"}',
    'Sure! Here it is:\n```json\n{"score": 4, "rationale": "ok",}\n```\nHope that helps.',
    "{'score': 4, 'rationale': 'ok'}",
    'The verdict {"score": 4.2, "rationale": "ok"} stands.',
])
def test_likert_replies_parse_in_the_shapes_models_write(reply):
    assert parse_likert(reply).score == 4


@pytest.mark.parametrize("reply", ["I would say four.", '{"score": 9}', '{"rating": 3}', '{"score": 3'])
def test_unparseable_likert_replies_raise_with_the_reply(reply):
    with pytest.raises(ParseError) as info:
        parse_likert(reply)
    assert info.value.task == "judge_likert" and info.value.reply == reply


def test_json_inside_strings_does_not_confuse_the_scanner():
    assert parse_json("t", 'x {"a": "brace } and [ bracket", "b": [1, {"c": "}"}]} y') == {
        "a": "brace } and [ bracket", "b": [1, {"c": "}"}]}
    assert parse_json("t", '{"q": "say \\"hi\\" {"}') == {"q": 'say "hi" {'}


@pytest.mark.parametrize(("reply", "index"), [('{"answer": "C", "confidence": 0.7}', 2), ("B", 1),
                                                ("(D) because the context says so", 3), ("Answer: a", 0),
                                                ("I think the answer is B.", 1), ("C. It is in notes/", 2)])
def test_mcq_letters(reply, index):
    assert parse_choice(reply, 4)[0] == index


@pytest.mark.parametrize("reply", ['{"answer": "E"}', "I cannot tell from the context.", "It depends"])
def test_mcq_without_a_stated_valid_letter_is_an_error(reply):
    with pytest.raises(ParseError, match="A-C"):
        parse_choice(reply, 3)


def test_anomaly_labels_accept_the_release_names_and_reject_others():
    assert parse_anomaly('{"label": "genuine_perturbation"}').label == "outlier"
    assert parse_anomaly('{"label": "Variation", "rationale": "task"}').label == "variation"
    with pytest.raises(ParseError):
        parse_anomaly('{"label": "weird"}')


def test_boundaries_become_covering_spans_and_facts_a_clean_list():
    assert parse_boundaries('{"boundaries": [3, 7, 7, 99, 0]}', 10) == [(0, 3), (3, 7), (7, 10)]
    assert parse_facts('{"facts": [" Revenue rose 5%. ", ""]}') == ["Revenue rose 5%."]
    with pytest.raises(ParseError):
        parse_facts('{"facts": [1, 2]}')


def test_every_prompted_task_renders_its_inputs():
    prompt = TASKS["answer_open"].render(question="Who?", context="Ann wrote it.", max_words=20)
    assert "Who?" in prompt and "Ann wrote it." in prompt and "20 words" in prompt
    with pytest.raises(TypeError, match="context"):
        TASKS["answer_open"].render(question="Who?", max_words=20)


class ScriptedModel(PromptBackend):
    """A prompt backend whose 'model' replies from a script: the prompting path without a network."""

    name, default_model = "scripted", "script-1"

    def __init__(self, replies: list[str], **kwargs):
        super().__init__(**kwargs)
        self.replies, self.prompts = list(replies), []

    def _complete(self, prompt: str, *, json_mode: bool, max_tokens: int) -> Completion:
        self.prompts.append(prompt)
        return Completion(self.replies.pop(0), input_tokens=len(prompt) // 4, output_tokens=7)


def test_prompted_answers_become_typed_results_and_usage_is_split_by_phase():
    model = ScriptedModel(['```json\n{"answer": "B", "confidence": 0.8}\n```', '{"score": 2, "rationale": "thin"}'])
    with model.phase("query"):
        answer = model.answer_mcq("Which file?", ["a.md", "b.md"], "b.md holds the report")
    with model.phase("judge"):
        score = model.judge_likert("reference text", "answer text")
    assert (answer.letter, answer.confidence, score.score) == ("B", 0.8, 2)
    assert "B. b.md" in model.prompts[0] and "5: same content" in model.prompts[1]
    assert model.usage.counts["query"]["calls"] == 1 and model.usage.counts["judge"]["output_tokens"] == 7
    assert model.usage.total("input_tokens") == sum(len(p) // 4 for p in model.prompts)
    assert model.usage.cost({"input": 1_000_000, "output": 0}) == model.usage.total("input_tokens")


def test_the_attribute_judge_renders_the_ordered_values_and_parses_a_likert_reply():
    model = ScriptedModel(['{"score": 4, "rationale": "asserts search-first"}', "It is a four."])
    question = "Describe this user's reading strategy (how they find and read information)."
    with model.phase("judge"):
        got = model.judge_attribute(question, "reading_strategy", "Search-first", "Greps for keywords first.")
    assert (got.score, got.rationale) == (4, "asserts search-first")
    prompt = model.prompts[0]
    assert "ATTRIBUTE: reading strategy" in prompt and "Sequential deep | Search-first | Breadth-first" in prompt
    assert "REFERENCE VALUE: Search-first" in prompt and "Greps for keywords first." in prompt and question in prompt
    assert "asserts nothing" in prompt and model.usage.counts["judge"]["calls"] == 1
    with pytest.raises(ParseError) as info:
        model.judge_attribute(question, "reading_strategy", "Search-first", "anything")
    assert info.value.task == "judge_attribute"
    with pytest.raises(ValueError, match="behavioural attribute"):
        model.judge_attribute(question, "language", "English", "English")  # identity attributes have no tiers
    assert len(model.prompts) == 2


def test_parse_failures_are_counted_and_raised_not_scored():
    model = ScriptedModel(["no idea"])
    with pytest.raises(ParseError):
        model.judge_likert("r", "a")
    assert model.usage.counts["ingest"]["parse_failures"] == 1


def test_unknown_phase_and_task_are_clear_errors():
    model = ScriptedModel([])
    with pytest.raises(ValueError, match="phases"):
        with model.phase("training"):
            pass
    with pytest.raises(KeyError, match="tasks"):
        model.run("translate", {})


class Counting(Backend):
    name, default_model = "counting", "c-1"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.computed = 0

    def _compute(self, task, inputs, params):
        self.computed += 1
        return Computed(inputs["text"].upper(), 3, 2)


def test_map_keeps_order_with_and_without_the_serial_switch():
    for serial in (False, True):
        backend = Counting(max_concurrency=4, serial=serial)
        assert backend.map(backend.summarize, ["a", "b", "c", "d", "e"]) == ["A", "B", "C", "D", "E"]
        assert backend.usage.total("calls") == 5


def test_map_counts_worker_calls_under_the_callers_phase():
    backend = Counting(max_concurrency=4)
    with backend.phase("query"):
        backend.map(backend.summarize, ["a", "b", "c", "d"])
    assert backend.usage.counts["query"]["calls"] == 4 and "ingest" not in backend.usage.counts


def test_registry_imports_lazily_and_names_missing_backends():
    assert set(BACKENDS) >= {"offline", "gemini", "cohere", "openai_compat"}
    with pytest.raises(KeyError, match="backends: offline"):
        get_backend("nonesuch")
    register_backend("counting-test", f"{__name__}:Counting")
    assert get_backend("counting-test").summarize("x") == "X"


def test_a_cached_rerun_makes_zero_calls(tmp_path):
    from filegram_kit.llm.cache import CacheMiss, ResponseCache

    first = Counting(cache=ResponseCache(tmp_path, "use"))
    assert [first.summarize(t) for t in ("a", "b", "a")] == ["A", "B", "A"]
    assert first.computed == 2 and first.usage.total("cached") == 1
    again = Counting(cache=ResponseCache(tmp_path, "replay"))  # a new process, same cache: no model calls
    assert again.summarize("b") == "B" and again.computed == 0 and again.usage.total("calls") == 0
    with pytest.raises(CacheMiss, match="summarize"):
        again.summarize("b", max_words=20)
    other_model = Counting(model="c-2", cache=ResponseCache(tmp_path, "use"))
    other_model.summarize("a")
    assert other_model.computed == 1  # the model is part of the key


def test_a_parse_failure_is_cached_whole_with_its_tokens_and_raised_again_without_a_call(tmp_path):
    from filegram_kit.llm.cache import ResponseCache

    model = ScriptedModel(["garbage " * 100, '{"score": 5, "rationale": "same"}'], cache=ResponseCache(tmp_path, "use"))
    with pytest.raises(ParseError) as first:
        model.judge_likert("ref", "ans")
    assert first.value.reply == "garbage " * 100  # the whole reply, not its first characters
    assert model.usage.total("output_tokens") == 7  # the tokens the failed reply cost are counted
    with pytest.raises(ParseError) as again:  # at temperature 0 the model would say the same: served from the cache
        model.judge_likert("ref", "ans")
    assert again.value.reply == first.value.reply and len(model.prompts) == 1
    assert model.usage.total("parse_failures") == 2 and model.usage.total("calls") == 1
    assert model.usage.total("cached") == 1


def test_paid_backends_get_the_default_cache_and_free_ones_none(tmp_path, monkeypatch):
    monkeypatch.setenv("FILEGRAM_CACHE", str(tmp_path))
    register_backend("counting-paid", f"{__name__}:Counting")
    assert get_backend("counting-paid").cache.root == tmp_path
    assert get_backend("counting-paid", cache=None).cache is None
    assert get_backend("offline").cache is None


def test_errors_cross_a_process_pool_whole():
    """An engine or bench worker that raises one of these must not break the pool (BrokenProcessPool)."""
    import pickle

    from filegram_kit.llm.context_window import ContextOverflow
    from filegram_kit.llm.retry import ProviderError

    parse = pickle.loads(pickle.dumps(ParseError("agent_step", "not JSON", "{'a'")))
    assert (parse.task, parse.reason, parse.reply) == ("agent_step", "not JSON", "{'a'")
    provider = pickle.loads(pickle.dumps(ProviderError("refused", 422)))
    assert (str(provider), provider.status) == ("refused", 422)
    overflow = pickle.loads(pickle.dumps(ContextOverflow("too long", 4096, 5000)))
    assert (overflow.window, overflow.requested, overflow.status) == (4096, 5000, 400)
