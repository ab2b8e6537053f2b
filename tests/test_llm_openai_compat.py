"""OpenAI-compatible backend against a loopback server speaking OpenAI's wire format: the real SDK request path."""

from __future__ import annotations

import json

import numpy as np
import pytest

from filegram_kit.engine.tools import TOOL_SPECS
from filegram_kit.llm.base import get_backend
from filegram_kit.llm.cache import CacheMiss, ResponseCache
from filegram_kit.llm.context_window import ContextOverflow
from filegram_kit.llm.openai_compat import OpenAICompatBackend
from filegram_kit.llm.output_caps import output_cap
from filegram_kit.llm.retry import AuthError, ProviderError
from filegram_kit.llm.tasks import ParseError, ToolCall

from .loopback import LoopbackServer

CHAT, EMBED = "/v1/chat/completions", "/v1/embeddings"


@pytest.fixture(autouse=True)
def no_outside_settings(tmp_path, monkeypatch):
    """Neither the developer's environment nor a filegram.toml may point these tests at a real server."""
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_EMBEDDING_MODEL",
                     "OPENAI_TOOL_MODEL", "OPENAI_CONCURRENCY", "OPENAI_TIMEOUT"):
        monkeypatch.delenv(variable, raising=False)
    (tmp_path / "empty.toml").write_text("", encoding="utf-8")
    monkeypatch.setenv("FILEGRAM_CONFIG", str(tmp_path / "empty.toml"))


@pytest.fixture
def server():
    with LoopbackServer() as loopback:
        yield loopback


def backend(server, waits=None, **kwargs):
    """A backend on the loopback server; retry waits are recorded, never slept."""
    options = {"base_url": server.url + "/v1", "api_key": "sk-test", "timeout": 2.0, "retries": 2,
               "sleep": (waits if waits is not None else []).append, **kwargs}
    return OpenAICompatBackend("local-model", **options)


def chat(content=None, tool_calls=(), usage=(11, 5)):
    message = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [{"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
                                 for call_id, name, args in tool_calls]
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "local-model",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}]}
    if usage:
        body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
    return body


def test_summarize_and_mcq_come_back_typed_with_the_servers_token_counts(server):
    server.reply(CHAT, chat("  Ann filed the Q3 report.  ", usage=(40, 7)))
    server.reply(CHAT, chat('{"answer": "B", "confidence": 0.8}', usage=(60, 9)))
    model = backend(server)
    assert model.summarize("Ann filed the Q3 report on Monday.", max_words=20) == "Ann filed the Q3 report."
    with model.phase("query"):
        answer = model.answer_mcq("Which file?", ["a.md", "b.md"], "b.md holds the report")
    assert (answer.letter, answer.confidence) == ("B", 0.8)

    first, second = (r.json for r in server.requests_to(CHAT))
    assert first["model"] == second["model"] == "local-model" and first["temperature"] == 0
    assert first["messages"][0]["role"] == "user" and "Ann filed the Q3 report on Monday." in first["messages"][0][
        "content"] and "20 words" in first["messages"][0]["content"]
    assert "response_format" not in first and second["response_format"] == {"type": "json_object"}
    assert "B. b.md" in second["messages"][0]["content"] and "tools" not in second
    assert server.requests[0].headers["authorization"] == "Bearer sk-test"
    assert model.usage.counts["ingest"]["input_tokens"] == 40 and model.usage.counts["query"]["output_tokens"] == 9
    assert model.usage.total("calls") == 2 and model.usage.total("input_tokens") == 100


def test_the_attribute_judge_asks_for_json_and_returns_a_likert_score(server):
    server.reply(CHAT, chat('{"score": 4, "rationale": "names the archive routine"}'))
    got = backend(server).judge_attribute("Describe this user's cleanup policy.", "cleanup_policy",
                                          "Periodic archival", "Old drafts are archived now and then.")
    assert (got.score, got.rationale) == (4, "names the archive routine")
    (body,) = (r.json for r in server.requests_to(CHAT))
    assert body["response_format"] == {"type": "json_object"}
    assert "Aggressive cleanup | Periodic archival | Never delete" in body["messages"][0]["content"]


def test_a_server_without_json_mode_is_asked_again_without_it(server):
    server.reply(CHAT, {"error": {"message": "response_format is not supported", "type": "invalid_request_error"}},
                 status=400)
    server.reply(CHAT, chat('{"answer": "A"}'), times=2)
    model = backend(server)
    assert model.answer_mcq("q?", ["x", "y"], "ctx").index == 0
    assert model.answer_mcq("q2?", ["x", "y"], "ctx").index == 0
    bodies = [r.json for r in server.requests_to(CHAT)]
    assert "response_format" in bodies[0] and all("response_format" not in b for b in bodies[1:])
    assert len(bodies) == 3


def test_a_rate_limit_is_retried_and_missing_usage_counts_zero(server):
    waits = []
    server.reply(CHAT, {"error": {"message": "slow down", "type": "rate_limit"}}, status=429)
    server.reply(CHAT, chat("fine", usage=None))
    model = backend(server, waits)
    assert model.summarize("text") == "fine"
    assert len(server.requests_to(CHAT)) == 2 and len(waits) == 1
    assert model.usage.total("calls") == 1 and model.usage.total("input_tokens") == 0


def test_server_errors_give_up_after_the_retries(server):
    waits = []
    server.reply(CHAT, {"error": {"message": "boom"}}, status=500, times=3)
    model = backend(server, waits, retries=2)
    with pytest.raises(ProviderError, match="after 3 attempts") as info:
        model.summarize("text")
    assert info.value.status == 500 and len(server.requests) == 3 and len(waits) == 2
    assert model.usage.total("errors") == 1


def test_a_refused_key_is_an_auth_error_at_once(server):
    waits = []
    server.reply(CHAT, {"error": {"message": "Incorrect API key", "type": "invalid_request_error"}}, status=401)
    server.reply(CHAT, chat("never served"))
    with pytest.raises(AuthError, match="OPENAI_API_KEY"):
        backend(server, waits).summarize("text")
    assert len(server.requests) == 1 and waits == []


def test_no_key_and_no_server_is_an_auth_error_before_any_call():
    with pytest.raises(AuthError, match="OPENAI_API_KEY.*OPENAI_BASE_URL"):
        OpenAICompatBackend("m")


def test_settings_come_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("OPENAI_MODEL", "qwen-local")
    server.reply(CHAT, chat("ok"))
    model = get_backend("openai_compat", sleep=lambda s: None)
    assert model.summarize("x") == "ok" and server.requests[0].json["model"] == "qwen-local"
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"  # local servers ignore the key
    # a server on this machine embeds with its own model unless told otherwise (OpenAI's default elsewhere)
    assert model.params() == {"backend": "openai_compat", "model": "qwen-local", "base_url": server.url + "/v1",
                              "embedding_model": "qwen-local"}


@pytest.mark.parametrize(("body", "message"), [("this is not json {", "JSONDecodeError"),
                                               ({"id": "x", "object": "chat.completion"}, "no choices")])
def test_a_malformed_body_is_a_clear_error_and_nothing_is_cached(server, tmp_path, body, message):
    server.reply(CHAT, body)
    cache = ResponseCache(tmp_path / "cache", "use")
    with pytest.raises(ProviderError, match=message):
        backend(server, cache=cache).summarize("text")
    assert cache.stores == 0 and not list((tmp_path / "cache").rglob("*.json"))


def test_a_reply_that_is_not_the_asked_json_is_a_parse_failure_kept_with_its_tokens(server, tmp_path):
    server.reply(CHAT, chat('{"answer": "<letter>", "confidence": 0.0-1.0}', usage=(120, 17)))
    model = backend(server, cache=ResponseCache(tmp_path, "use"))
    with model.phase("query"), pytest.raises(ParseError, match="answer_mcq") as failed:
        model.answer_mcq("q?", ["x", "y"], "ctx")
    assert failed.value.reply == '{"answer": "<letter>", "confidence": 0.0-1.0}'  # the template echoed back
    assert model.usage.counts["query"] == {"calls": 1, "cached": 0, "input_tokens": 120, "output_tokens": 17,
                                               "parse_failures": 1, "errors": 0, "context_cuts": 0}
    with pytest.raises(ParseError):  # the rerun is served the same failure from the cache: no request
        model.answer_mcq("q?", ["x", "y"], "ctx")
    assert len(server.requests) == 1


def test_every_call_states_the_output_cap_of_its_task(server):
    server.reply(CHAT, chat('{"answer": "B"}'))
    server.reply(CHAT, chat("a short summary"))
    server.reply(CHAT, chat('{"facts": ["a"]}'))
    model = backend(server)
    model.answer_mcq("q?", ["x", "y"], "ctx")
    model.summarize("text", max_words=50)
    model.extract_facts("text", max_facts=3)
    caps = [r.json["max_tokens"] for r in server.requests]
    assert caps == [output_cap("answer_mcq", {}), output_cap("summarize", {"max_words": 50}),
                    output_cap("extract_facts", {"max_facts": 3})]
    assert caps[0] < caps[1] and caps[2] > caps[0]  # a letter, then words, then records


def test_a_model_that_refuses_max_tokens_gets_max_completion_tokens_from_then_on(server):
    refusal = {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                                    "'max_completion_tokens' instead.", "type": "invalid_request_error"}}
    server.reply(CHAT, refusal, status=400)
    server.reply(CHAT, chat("one"), times=2)
    model = backend(server)
    assert model.summarize("a") == "one" and model.summarize("b") == "one"
    sent = [r.json for r in server.requests]
    assert "max_tokens" in sent[0] and sent[1]["max_completion_tokens"] == sent[0]["max_tokens"]
    assert "max_tokens" not in sent[2] and "max_completion_tokens" in sent[2]


def test_a_reply_cut_at_its_cap_that_does_not_parse_says_so(server):
    body = chat('{"facts": ["the user keeps drafts in', usage=(30, 64))
    body["choices"][0]["finish_reason"] = "length"
    server.reply(CHAT, body)
    with pytest.raises(ParseError, match="stopped at its cap"):
        backend(server).extract_facts("text", max_facts=1)


def test_a_prompt_too_long_for_the_window_is_cut_by_the_stated_rule_and_counted(server):
    too_long = {"error": {"message": "This model's maximum context length is 512 tokens. However, you requested "
                                     "2100 tokens (2036 in the messages, 64 in the completion).",
                          "type": "invalid_request_error", "code": "context_length_exceeded"}}
    server.reply(CHAT, too_long, status=400)
    server.reply(CHAT, chat('{"answer": "A"}', usage=(400, 5)), times=2)
    model = backend(server)
    question, context = "Which folder holds the drafts?", "the drafts folder holds every draft. " * 200
    with model.phase("query"):
        assert model.answer_mcq(question, ["drafts/", "final/"], context).letter == "A"
    first, cut = server.requests[0].json["messages"][0]["content"], server.requests[1].json["messages"][0]["content"]
    assert question in cut and "B. final/" in cut  # the question and options are never cut: the context is
    assert "characters cut to fit the model's context window" in cut and len(cut) < len(first)
    assert len(cut) <= (512 - output_cap("answer_mcq", {})) * len(first) / 2036  # fits, by the refused prompt's ratio
    assert model.context_window == 512 and model.usage.counts["query"]["context_cuts"] == 1
    # the window is remembered: the next long prompt is cut before it is sent, with no refusal
    model.answer_mcq("Which folder is final?", ["drafts/", "final/"], context)
    assert len(server.requests) == 3 and "characters cut" in server.requests[2].json["messages"][0]["content"]


def test_an_agent_conversation_too_long_for_the_window_loses_the_end_of_its_longest_message(server):
    too_long = {"error": {"message": "Requested tokens (5000) exceed context window of 2048"}}
    server.reply(CHAT, too_long, status=400)
    server.reply(CHAT, chat("Done."))
    long_read = "line of a long file\n" * 1500
    messages = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Tidy the folder."},
                {"role": "assistant", "content": "", "tool_calls": [{"name": "read", "arguments": {}, "id": "c1"}]},
                {"role": "tool", "tool_call_id": "c1", "content": long_read}]
    model = backend(server)
    assert model.agent_step(messages, TOOL_SPECS).done
    sent = server.requests[1].json["messages"]
    assert [m["content"] for m in sent[:2]] == ["You are careful.", "Tidy the folder."]  # the task is kept whole
    assert "characters cut to fit" in sent[3]["content"] and len(sent[3]["content"]) < len(long_read)
    assert model.usage.total("context_cuts") == 1


def test_a_long_agent_conversation_loses_its_oldest_turns_first_and_never_an_orphan_tool_answer(server):
    too_long = {"error": {"message": "Requested tokens (2400) exceed context window of 2048"}}
    server.reply(CHAT, too_long, status=400)
    server.reply(CHAT, chat("Done."))
    messages = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Tidy the folder."}]
    for turn in range(30):
        messages += [{"role": "assistant", "content": "", "tool_calls": [
                          {"name": "read", "arguments": {"file_path": f"f{turn}.md"}, "id": f"c{turn}"}]},
                     {"role": "tool", "tool_call_id": f"c{turn}", "content": f"contents of file {turn} " * 8}]
    backend(server).agent_step(messages, TOOL_SPECS)
    sent = server.requests[1].json["messages"]
    assert [m["content"] for m in sent[:2]] == ["You are careful.", "Tidy the folder."]
    assert sent[2]["role"] == "assistant" and 4 < len(sent) < len(messages)  # whole turns, the latest ones
    assert sent[-1]["content"] == messages[-1]["content"] and "characters cut" not in json.dumps(sent)


class Tokenizer:
    """A server that counts a prompt as `overhead` tokens (its chat template, the tools) plus one token per
    `chars_per_token` characters of the messages, and refuses, as llama.cpp does, what its window cannot hold."""

    def __init__(self, window: int, chars_per_token: float, overhead: int, reply: str = '{"answer": "A"}'):
        self.window, self.chars_per_token, self.overhead, self.reply = window, chars_per_token, overhead, reply
        self.statuses: list[int] = []

    def __call__(self, request):
        chars = sum(len(str(m.get("content") or "")) + len(json.dumps(m.get("tool_calls") or ""))
                    for m in request.json["messages"])
        tokens = self.overhead + int(chars / self.chars_per_token)
        self.statuses.append(400 if tokens + request.json["max_tokens"] > self.window else 200)
        if self.statuses[-1] == 400:
            return 400, {"error": {"message": f"Requested tokens ({tokens}) exceed context window of {self.window}"}}
        return 200, chat(self.reply, usage=(tokens, 3))


def test_a_long_context_of_few_characters_a_token_is_cut_to_fit_at_the_first_resend(server):
    """Text of 2.8 characters a token, six windows long: the refusal's own count says how much to cut (a fixed
    4.5 characters a token once cut more than the whole context and failed the row)."""
    server.reply(CHAT, tokenizer := Tokenizer(window=4096, chars_per_token=2.8, overhead=30), times=4)
    model = backend(server)
    context = "2026-03-01 write notes/a.md +12 lines; " * 1800  # 70,200 characters, about 25,000 tokens
    assert model.answer_mcq("Where do notes go?", ["notes/", "drafts/"], context).letter == "A"
    assert tokenizer.statuses == [400, 200]
    assert model.usage.total("context_cuts") == 1
    kept = len(server.requests[1].json["messages"][0]["content"])
    assert kept > 0.8 * 0.9 * (4096 - output_cap("answer_mcq", {})) * 2.8  # cut to the window, not far below it


def test_an_agent_whose_tools_take_much_of_the_window_fits_after_a_second_refusal_and_from_then_on_at_once(server):
    """The template writes the tools out at 2,400 of 4,096 tokens, far more than their JSON's characters show:
    a cut by the refused prompt's ratio is too little (twice: the third send would fail the step); the second
    refusal gives the overhead, and the third send fits."""
    server.reply(CHAT, tokenizer := Tokenizer(window=4096, chars_per_token=3.5, overhead=2400, reply="Done."), times=6)
    model = backend(server)

    def conversation(turns: int) -> list[dict]:
        messages = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Tidy up."}]
        for turn in range(turns):
            messages += [{"role": "assistant", "content": "", "tool_calls": [
                             {"name": "read", "arguments": {"file_path": f"f{turn}.md"}, "id": f"c{turn}"}]},
                         {"role": "tool", "tool_call_id": f"c{turn}", "content": f"line {turn} of a file. " * 30}]
        return messages

    assert model.agent_step(conversation(60), TOOL_SPECS).done
    assert tokenizer.statuses == [400, 400, 200]
    assert model.agent_step(conversation(80), TOOL_SPECS).done  # the overhead is known: cut before it is sent
    assert tokenizer.statuses[3:] == [200]
    assert model.usage.total("context_cuts") == 2


def test_a_long_agent_conversation_keeps_the_beginning_of_its_cut_for_several_steps():
    """A local server rereads only what follows the prompt it read last: cut by one more turn at every step, the
    conversation began differently each time and SmolLM2 reread its whole window at every step (24 s a step)."""
    from filegram_kit.llm.context_window import cut_messages

    def length(messages: list[dict]) -> int:
        return len(json.dumps(messages))

    budget, messages, firsts, sizes = 6000, [{"role": "system", "content": "You are careful."},
                                             {"role": "user", "content": "Tidy up."}], [], []
    for step in range(80):
        messages += [{"role": "assistant", "content": "", "tool_calls": [
                         {"name": "read", "arguments": {"file_path": f"f{step}.md"}, "id": f"c{step}"}]},
                     {"role": "tool", "tool_call_id": f"c{step}",
                      "content": f"line {step} of a file. " * (step % 7 + 2)}]
        kept, dropped = cut_messages(messages, length, budget)
        assert length(kept) <= budget and kept[:2] == messages[:2] and kept[-1] == messages[-1]
        assert kept[2]["role"] == "assistant" and kept[2:] == messages[len(messages) - len(kept) + 2:]
        if dropped:
            firsts.append(kept[2]["tool_calls"][0]["id"])
            sizes.append(length(kept))
    changes = sum(a != b for a, b in zip(firsts[:-1], firsts[1:], strict=True))
    assert len(firsts) > 40 and changes <= len(firsts) / 4  # the kept part began the same for 4+ steps at a time
    assert min(sizes) > budget / 2  # and a cut still keeps over half the window's worth


def test_a_whole_file_written_in_one_tool_call_is_cut_in_the_conversation_not_an_overflow(server):
    """SmolLM2 wrote a 10,000-character file in one `write` call: the call stays in the conversation as its
    latest turn, and its argument is the text that must lose its end (the contents alone are far too short)."""
    server.reply(CHAT, tokenizer := Tokenizer(window=4096, chars_per_token=3.5, overhead=600, reply="Done."), times=4)
    model = backend(server)
    text = "A line of the report that the model wrote again and again. " * 170
    messages = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Write the report."},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"name": "write", "arguments": {"file_path": "report.md", "content": text}, "id": "c0"}]},
                {"role": "tool", "tool_call_id": "c0", "content": "ERROR (invalid_input): too long"}]
    assert model.agent_step(messages, TOOL_SPECS).done
    assert tokenizer.statuses[-1] == 200 and model.usage.total("context_cuts") == 1
    sent = json.loads(server.requests[-1].json["messages"][2]["tool_calls"][0]["function"]["arguments"])
    assert sent["file_path"] == "report.md"
    assert 1000 < len(sent["content"]) < len(text) and "characters cut" in sent["content"]
    assert messages[2]["tool_calls"][0]["arguments"]["content"] == text  # the agent's own record keeps it all


def test_a_window_too_small_for_the_question_itself_is_a_context_overflow(server):
    too_long = {"error": {"message": "Requested tokens (900) exceed context window of 80"}}
    server.reply(CHAT, too_long, status=400, times=3)
    with pytest.raises(ContextOverflow):
        backend(server).answer_mcq("q " * 400, ["x", "y"], "ctx")


def test_a_local_server_gets_one_request_at_a_time_and_a_timed_out_call_is_not_sent_again(server):
    server.reply(CHAT, chat("too late"), delay=2.0, times=2)
    model = backend(server, timeout=0.3)
    assert model.local and model.max_concurrency == 1
    with pytest.raises(ProviderError, match="(?i)timeout|timed out"):
        model.summarize("text")
    assert len(server.requests) == 1  # a retry would only queue behind the request the server still works on


def test_a_remote_server_that_times_out_is_retried_then_fails(server):
    waits = []
    server.reply(CHAT, chat("too late"), delay=2.0, times=2)
    model = backend(server, waits, timeout=0.2, retries=1)
    model.local = False  # as for a server elsewhere
    with pytest.raises(ProviderError, match="(?i)timeout|timed out"):
        model.summarize("text")
    assert len(server.requests) == 2 and len(waits) == 1


def test_concurrent_callers_reach_a_local_server_one_at_a_time(server):
    from concurrent.futures import ThreadPoolExecutor

    server.reply(CHAT, chat("ok"), delay=0.2, times=4)
    model = backend(server)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda t: model.summarize(t), ["a", "b", "c", "d"]))
    assert server.max_in_flight == 1


def test_an_agent_step_turns_tool_calls_into_typed_calls_and_the_conversation_into_openai_format(server):
    server.reply(CHAT, chat("Looking around.", [("call_a", "ls", '{"path": "."}'),
                                                ("call_b", "read", '{"file_path": "notes/a.md", "limit": 40}')]))
    server.reply(CHAT, chat("Done.", usage=(300, 4)))
    model = backend(server)
    messages = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Tidy the folder."}]
    step = model.agent_step(messages, TOOL_SPECS)
    assert step.text == "Looking around." and not step.done
    assert step.tool_calls == (ToolCall("ls", {"path": "."}, "call_a"),
                               ToolCall("read", {"file_path": "notes/a.md", "limit": 40}, "call_b"))
    first = server.requests[0].json
    assert first["messages"] == messages
    assert {t["function"]["name"] for t in first["tools"]} == set(TOOL_SPECS)
    read = next(t for t in first["tools"] if t["function"]["name"] == "read")
    assert read["type"] == "function" and read["function"]["parameters"] == TOOL_SPECS["read"]["parameters"]

    # the conversation as the engine keeps it (neutral format), then the next turn
    messages += [{"role": "assistant", "content": step.text,
                  "tool_calls": [{"name": c.name, "arguments": c.arguments, "id": c.id} for c in step.tool_calls]},
                 {"role": "tool", "tool_call_id": "call_a", "name": "ls", "content": "notes/\nreport.md"},
                 {"role": "tool", "tool_call_id": "call_b", "name": "read", "content": "1\tRevenue rose."}]
    final = model.agent_step(messages, TOOL_SPECS)
    assert final.done and final.text == "Done."
    sent = server.requests[1].json["messages"]
    assistant = sent[2]
    assert assistant["role"] == "assistant" and assistant["content"] == "Looking around."
    assert [(c["id"], c["type"], c["function"]["name"]) for c in assistant["tool_calls"]] == [
        ("call_a", "function", "ls"), ("call_b", "function", "read")]
    assert json.loads(assistant["tool_calls"][1]["function"]["arguments"]) == {"file_path": "notes/a.md", "limit": 40}
    assert sent[3:] == [{"role": "tool", "tool_call_id": "call_a", "content": "notes/\nreport.md"},
                        {"role": "tool", "tool_call_id": "call_b", "content": "1\tRevenue rose."}]
    assert model.usage.total("input_tokens") == 11 + 300


def test_calls_with_tools_go_to_the_tool_model_and_text_tasks_to_the_chat_model(server, monkeypatch):
    """A server may serve a model's tool-calling chat format under its own name (llama-cpp-python's
    chatml-function-calling HTML-escapes every message, so text tasks must not go there)."""
    monkeypatch.setenv("OPENAI_TOOL_MODEL", "local-model-tools")
    server.reply(CHAT, chat("ok"))
    server.reply(CHAT, chat("Looking.", [("call_a", "ls", '{"path": "."}')]))
    model = backend(server)
    model.summarize("x")
    model.agent_step([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], TOOL_SPECS)
    assert [r.json["model"] for r in server.requests] == ["local-model", "local-model-tools"]
    assert model.params()["tool_model"] == "local-model-tools"  # in every cache key and manifest
    assert "tool_model" not in backend(server, tool_model="local-model").params()  # keys as before without one


def test_malformed_tool_arguments_are_a_counted_parse_failure_the_tool_refuses(server, tmp_path):
    """A small model's call whose arguments are not JSON goes to the tool as it came, which refuses it as bad
    parameters (the agent sees that and goes on); tolerant JSON (single quotes) still parses."""
    from filegram_kit.engine.recorder import Recorder, SimClock
    from filegram_kit.engine.tools import ToolBox

    server.reply(CHAT, chat(None, [("call_a", "read", '{"file_path": "a.md"'),
                                   ("call_b", "ls", "{'path': '.'}")]))
    model = backend(server)
    step = model.agent_step([{"role": "user", "content": "go"}], TOOL_SPECS)
    assert [c.arguments for c in step.tool_calls] == [{"unparsed_arguments": '{"file_path": "a.md"'}, {"path": "."}]
    assert model.usage.total("parse_failures") == 1
    clock = SimClock(0.0)
    recorder = Recorder(root=tmp_path, trajectory_id="t", profile_id="p", clock=clock,
                        rng=np.random.default_rng(0), media=tmp_path / "media")
    result = ToolBox(tmp_path, recorder, clock, np.random.default_rng(0)).call("read", **step.tool_calls[0].arguments)
    assert not result.ok and result.error_type == "invalid_parameters"


def test_embeddings_come_back_unit_length_in_input_order(server):
    server.reply(EMBED, {"object": "list", "model": "text-embedding-3-small",
                         "data": [{"object": "embedding", "index": 1, "embedding": [0.0, 2.0, 0.0]},
                                  {"object": "embedding", "index": 0, "embedding": [3.0, 4.0, 0.0]}],
                         "usage": {"prompt_tokens": 6, "total_tokens": 6}})
    model = backend(server, embedding_model="embed-local")
    rows = model.embed(["first text", "second text"], input_type="query")
    np.testing.assert_allclose(rows, [[0.6, 0.8, 0.0], [0.0, 1.0, 0.0]], atol=1e-6)
    body = server.requests[0].json
    assert body == {"model": "embed-local", "input": ["first text", "second text"], "encoding_format": "float"}
    assert model.usage.total("input_tokens") == 6


def test_one_vector_per_token_is_mean_pooled(server):
    """llama-cpp-python's server without pooling answers each text with its tokens' vectors."""
    server.reply(EMBED, {"object": "list", "data": [
        {"object": "embedding", "index": 0, "embedding": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]},
        {"object": "embedding", "index": 1, "embedding": [[3.0, 0.0]]}]})
    rows = backend(server).embed(["three tokens", "one"])
    np.testing.assert_allclose(rows, [[np.sqrt(0.5), np.sqrt(0.5)], [1.0, 0.0]], atol=1e-9)


def test_a_server_without_embeddings_falls_back_to_the_offline_embedder_and_says_so(server):
    from filegram_kit.llm.offline import OfflineBackend

    server.reply(EMBED, {"error": {"message": "Not Found"}}, status=404)
    model = backend(server)
    with pytest.warns(UserWarning, match="serves no embeddings"):
        rows = model.embed(["drafts folder", "final report"])
    np.testing.assert_allclose(rows, OfflineBackend().embed(["drafts folder", "final report"]))
    assert model.params()["embedding_model"] == "offline" and len(server.requests) == 1
    model.embed(["another text"])  # decided once: no second request
    assert len(server.requests) == 1


def test_embedding_model_offline_never_asks_the_server(server):
    model = backend(server, embedding_model="offline")
    assert model.embed(["a text"]).shape[0] == 1 and not server.requests


def test_a_cached_rerun_makes_zero_http_requests_and_servers_do_not_share_answers(server, tmp_path):
    server.reply(CHAT, chat("A short summary."))
    assert backend(server, cache=ResponseCache(tmp_path, "use")).summarize("long text") == "A short summary."
    assert len(server.requests) == 1
    again = backend(server, cache=ResponseCache(tmp_path, "replay"))
    assert again.summarize("long text") == "A short summary."
    assert len(server.requests) == 1 and again.usage.total("cached") == 1 and again.usage.total("calls") == 0
    with LoopbackServer() as other:  # same model name on another server: not the same answers
        with pytest.raises(CacheMiss):
            backend(other, cache=ResponseCache(tmp_path, "replay")).summarize("long text")
        assert other.requests == []


def test_the_template_overhead_is_fitted_on_one_prompt_at_two_lengths_never_across_two_prompts():
    """Two prompts of one kind tokenise at different densities (a diff, Chinese): a line through them once gave
    an overhead above the window, a budget of 0 characters and a failed ingest."""
    from filegram_kit.llm.context_window import PromptSizes

    sizes = PromptSizes()
    sizes.add(4000, 1000)
    sizes.add(4600, 2500)  # another prompt, denser: no line through the two, its own ratio
    assert sizes.overhead == 0 and sizes.budget(4096, 64) == int(4032 * 0.9 * 4600 / 2500)
    sizes.add(2300, 1500, same_prompt=(4600, 2500))  # the same prompt cut: 500 tokens do not shrink with it
    assert sizes.overhead == pytest.approx(500) and sizes.ratio == pytest.approx(2.3)
    assert sizes.budget(4096, 64) == int((4032 * 0.9 - 500) * 2.3)
    sizes.add(2300, 3000, same_prompt=(4600, 2500))  # a line with a negative ratio is not physical: kept as known
    assert sizes.overhead == pytest.approx(500)
