"""Contract tests of the gemini backend: the real google-genai SDK talks to a loopback server in Gemini's format."""

from __future__ import annotations

import base64

import numpy as np
import pytest

pytest.importorskip("google.genai")

from filegram_kit.engine.tools import TOOL_SPECS  # noqa: E402
from filegram_kit.llm.cache import ResponseCache  # noqa: E402
from filegram_kit.llm.gemini import THINKING_ALLOWANCE, GeminiBackend  # noqa: E402
from filegram_kit.llm.output_caps import output_cap  # noqa: E402
from filegram_kit.llm.retry import AuthError, ProviderError  # noqa: E402
from filegram_kit.llm.tasks import ParseError  # noqa: E402
from tests.loopback import LoopbackServer  # noqa: E402

API = "/v1/models"  # the API version google-genai sends by default (an SDK change shows as a 404 naming the path)
GENERATE = f"{API}/gemini-2.5-flash:generateContent"
EMBED = f"{API}/gemini-embedding-001:batchEmbedContents"


def reply(*parts: dict, prompt_tokens: int = 11, output_tokens: int = 3) -> dict:
    return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": prompt_tokens, "candidatesTokenCount": output_tokens,
                              "totalTokenCount": prompt_tokens + output_tokens}}


def error(status: int, name: str) -> dict:
    return {"error": {"code": status, "message": f"scripted {name}", "status": name}}


@pytest.fixture(autouse=True)
def no_environment(monkeypatch):
    for variable in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GEMINI_MODEL"):
        monkeypatch.delenv(variable, raising=False)


def backend(server: LoopbackServer, **kwargs) -> GeminiBackend:
    return GeminiBackend(api_key="test-key", base_url=server.url, timeout=5.0, **kwargs)


def test_a_json_task_runs_through_the_sdk_with_typed_result_and_reported_usage(server, sleeps):
    server.reply(GENERATE, reply({"text": '{"answer": "B", "confidence": 0.8}'}, prompt_tokens=42, output_tokens=9))
    model = backend(server)
    with model.phase("query"):
        answer = model.answer_mcq("Which file holds the report?", ["a.md", "b.md"], "b.md holds the report")
    assert (answer.index, answer.letter, answer.confidence) == (1, "B", 0.8)
    assert model.usage.counts["query"] == {"calls": 1, "cached": 0, "input_tokens": 42, "output_tokens": 9,
                                           "parse_failures": 0, "errors": 0, "context_cuts": 0}
    (request,) = server.requests
    assert request.path == GENERATE and request.headers["x-goog-api-key"] == "test-key"
    body = request.json
    # the MCQ's output cap, with room for a 2.5 model's thinking on top
    assert body["generationConfig"] == {"temperature": 0.0, "responseMimeType": "application/json",
                                        "maxOutputTokens": output_cap("answer_mcq", {}) + THINKING_ALLOWANCE}
    prompt = body["contents"][0]["parts"][0]["text"]
    assert body["contents"][0]["role"] == "user" and "Which file holds the report?" in prompt and "B. b.md" in prompt
    assert not sleeps


def test_a_text_task_asks_for_no_json_and_a_model_setting_is_used(server, monkeypatch):
    monkeypatch.setenv("GEMINI_MODEL", "gemini-2.5-pro")
    server.reply(f"{API}/gemini-2.5-pro:generateContent", reply({"text": "  Ann wrote the report.  "}))
    model = backend(server)
    assert model.summarize("Ann wrote the report on Monday.") == "Ann wrote the report."
    assert "responseMimeType" not in server.requests[0].json["generationConfig"]


def test_rate_limit_then_success_is_retried(server, sleeps):
    server.reply(GENERATE, error(429, "RESOURCE_EXHAUSTED"), status=429)
    server.reply(GENERATE, reply({"text": '{"score": 4, "rationale": "close"}'}))
    score = backend(server).judge_likert("reference", "answer")
    assert score.score == 4 and len(server.requests) == 2 and len(sleeps) == 1


def test_the_attribute_judge_renders_and_parses_through_the_sdk(server):
    server.reply(GENERATE, reply({"text": '{"score": 4, "rationale": "flat root folder"}'}))
    got = backend(server).judge_attribute("Describe this user's directory style.", "directory_style",
                                          "Flat, root only", "Everything stays in the root folder.")
    assert (got.score, got.rationale) == (4, "flat root folder")
    prompt = server.requests[0].json["contents"][0]["parts"][0]["text"]
    assert "Nested, 3+ levels | Adaptive, 1–2 | Flat, root only" in prompt and "REFERENCE VALUE: Flat" in prompt


def test_a_refused_key_is_an_auth_error_naming_the_variable_without_retry(server, sleeps):
    server.reply(GENERATE, error(401, "UNAUTHENTICATED"), status=401)
    model = backend(server)
    with pytest.raises(AuthError, match="GEMINI_API_KEY"):
        model.summarize("text")
    assert len(server.requests) == 1 and not sleeps and model.usage.total("errors") == 1


def test_a_missing_key_fails_before_any_request(server):
    model = GeminiBackend(base_url=server.url)
    with pytest.raises(AuthError, match="GEMINI_API_KEY"):
        model.summarize("text")
    assert server.requests == []


def test_server_errors_that_persist_become_a_provider_error(server, sleeps):
    server.reply(GENERATE, error(500, "INTERNAL"), status=500, times=3)
    with pytest.raises(ProviderError, match="after 3 attempts") as info:
        backend(server, retries=2).summarize("text")
    assert info.value.status == 500 and len(server.requests) == 3 and len(sleeps) == 2


def test_a_malformed_body_is_a_clear_error_and_nothing_is_cached(server, sleeps, tmp_path):
    server.reply(GENERATE, "{not json")
    server.reply(GENERATE, reply({"text": "A fine summary."}))
    model = backend(server, cache=ResponseCache(tmp_path, "use"))
    with pytest.raises(ProviderError, match="gemini gemini-2.5-flash failed"):
        model.summarize("text")
    assert not list(tmp_path.rglob("*.json"))
    assert model.summarize("text") == "A fine summary." and len(server.requests) == 2


def test_a_reply_that_is_not_the_asked_json_is_a_counted_parse_error(server, tmp_path):
    server.reply(GENERATE, reply({"text": "I would say it is a four."}))
    model = backend(server, cache=ResponseCache(tmp_path, "use"))
    with model.phase("judge"), pytest.raises(ParseError):
        model.judge_likert("reference", "answer")
    assert model.usage.counts["judge"]["parse_failures"] == 1
    with model.phase("judge"), pytest.raises(ParseError, match="four"):  # the same failure, from the cache
        model.judge_likert("reference", "answer")
    assert len(server.requests) == 1 and model.usage.counts["judge"]["parse_failures"] == 2


def test_tool_calls_round_trip_in_gemini_function_parts(server):
    server.reply(GENERATE, reply({"text": "Reading it."},
                                 {"functionCall": {"name": "read", "args": {"file_path": "a.md"}, "id": "fc-7"}}))
    messages = [{"role": "system", "content": "You are a careful analyst."},
                {"role": "user", "content": "Summarize the folder."},
                {"role": "assistant", "content": "Looking.", "tool_calls": [
                    {"name": "ls", "arguments": {"path": "."}, "id": "call_0"}]},
                {"role": "tool", "tool_call_id": "call_0", "content": "a.md\nb.md"}]
    model = backend(server)
    step = model.agent_step(messages, TOOL_SPECS)
    assert step.text == "Reading it." and not step.done
    assert (step.tool_calls[0].name, step.tool_calls[0].arguments, step.tool_calls[0].id) == (
        "read", {"file_path": "a.md"}, "fc-7")
    assert model.usage.total("input_tokens") == 11
    body = server.requests[0].json
    assert body["systemInstruction"]["parts"][0]["text"] == "You are a careful analyst."
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert body["contents"][1]["parts"][1]["functionCall"] == {"id": "call_0", "name": "ls", "args": {"path": "."}}
    assert body["contents"][2]["parts"][0]["functionResponse"] == {
        "id": "call_0", "name": "ls", "response": {"output": "a.md\nb.md"}}
    declared = body["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declared] == list(TOOL_SPECS)
    schema = declared[0].get("parametersJsonSchema", declared[0].get("parameters_json_schema"))  # SDK sends snake
    assert schema == TOOL_SPECS["read"]["parameters"]


def test_embeddings_are_unit_rows_with_the_retrieval_task_type(server):
    server.reply(EMBED, {"embeddings": [{"values": [3.0, 4.0]}, {"values": [0.0, 2.0]}],
                         "usageMetadata": {"promptTokenCount": 6}})
    server.reply(EMBED, {"embeddings": [{"values": [1.0, 1.0]}]})  # no usage reported: 0 tokens
    model = backend(server)
    docs = model.embed(["first text", "second text"])
    query = model.embed(["a question"], input_type="query")
    np.testing.assert_allclose(docs, [[0.6, 0.8], [0.0, 1.0]], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(query, axis=1), 1.0, atol=1e-6)
    first, second = (r.json["requests"] for r in server.requests)
    assert [r["content"]["parts"][0]["text"] for r in first] == ["first text", "second text"]
    assert {r["taskType"] for r in first} == {"RETRIEVAL_DOCUMENT"} and second[0]["taskType"] == "RETRIEVAL_QUERY"
    assert first[0]["model"] == "models/gemini-embedding-001"
    assert model.usage.total("input_tokens") == 6


def test_a_cached_rerun_makes_zero_requests_even_without_a_key(server, tmp_path):
    server.reply(GENERATE, reply({"text": '{"label": "outlier", "rationale": "far off"}'}))
    server.reply(EMBED, {"embeddings": [{"values": [1.0, 0.0]}]})
    first = backend(server, cache=ResponseCache(tmp_path, "use"))
    verdict = first.judge_anomaly({"reads": 3.1})
    vector = first.embed(["x"])
    again = GeminiBackend(base_url=server.url, cache=ResponseCache(tmp_path, "replay"))  # no key needed
    assert again.judge_anomaly({"reads": 3.1}) == verdict
    np.testing.assert_array_equal(again.embed(["x"]), vector)
    assert len(server.requests) == 2 and again.usage.total("cached") == 2 and again.usage.total("calls") == 0
    other = backend(server, embedding_model="text-embedding-004", cache=ResponseCache(tmp_path, "replay"))
    with pytest.raises(LookupError):  # another embedding model is another cache key
        other.embed(["x"])


def test_images_go_inline_with_their_mime_types(server, tmp_path):
    server.reply(GENERATE, reply({"text": "A bar chart."}, prompt_tokens=300, output_tokens=4))
    photo = tmp_path / "shot.jpg"
    photo.write_bytes(b"\xff\xd8jpeg")
    model = backend(server)
    assert model.complete_multimodal("What is shown?", [b"\x89PNGdata", photo]).text == "A bar chart."
    parts = server.requests[0].json["contents"][0]["parts"]
    assert parts[0] == {"text": "What is shown?"}
    mimes = [p["inlineData"].get("mimeType", p["inlineData"].get("mime_type")) for p in parts[1:]]  # SDK: snake
    assert mimes == ["image/png", "image/jpeg"]
    data = parts[2]["inlineData"]["data"]  # the SDK sends URL-safe base64 without padding
    assert base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)) == b"\xff\xd8jpeg"
    assert model.usage.total("input_tokens") == 300 and model.usage.total("calls") == 1


def test_many_texts_go_in_ordered_batches(server, monkeypatch):
    monkeypatch.setattr("filegram_kit.llm.gemini.EMBED_BATCH", 2)

    def rows(request):
        texts = [r["content"]["parts"][0]["text"] for r in request.json["requests"]]
        return 200, {"embeddings": [{"values": [float(t[1:]), 1.0]} for t in texts]}

    server.reply(EMBED, rows, times=3)
    vectors = backend(server).embed([f"t{i}" for i in range(5)])
    assert [len(r.json["requests"]) for r in server.requests] == [2, 2, 1]
    expected = np.array([[i, 1.0] for i in range(5)])
    np.testing.assert_allclose(vectors, expected / np.linalg.norm(expected, axis=1, keepdims=True), atol=1e-6)


def test_the_timeout_reaches_the_sdk(server):
    server.reply(GENERATE, reply({"text": "late"}), delay=3.0)
    with pytest.raises(ProviderError, match="(?i)timeout|timed out"):
        GeminiBackend(api_key="k", base_url=server.url, timeout=0.2, retries=0).summarize("x")
