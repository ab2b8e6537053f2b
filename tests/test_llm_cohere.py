"""Contract tests of the cohere backend: the real cohere SDK (ClientV2) talks to a loopback server at POST /v2/embed."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cohere")

from filegram_kit.llm.cache import ResponseCache  # noqa: E402
from filegram_kit.llm.cohere import CohereBackend  # noqa: E402
from filegram_kit.llm.retry import AuthError, ProviderError  # noqa: E402
from tests.loopback import LoopbackServer  # noqa: E402

EMBED = "/v2/embed"


def embed_reply(vectors: list[list[float]], tokens: int | None = 5) -> dict:
    body = {"id": "emb-1", "response_type": "embeddings_by_type", "embeddings": {"float": vectors},
            "texts": [f"t{i}" for i in range(len(vectors))], "meta": {"api_version": {"version": "2"}}}
    if tokens is not None:
        body["meta"]["billed_units"] = {"input_tokens": tokens}
    return body


def echo_rows(request) -> tuple[int, dict]:
    """A vector per text that says which text it was: text 'tN' -> [N, 1] (so order is checkable)."""
    texts = request.json["texts"]
    return 200, embed_reply([[float(t[1:]), 1.0] for t in texts], tokens=len(texts))


@pytest.fixture(autouse=True)
def no_environment(monkeypatch):
    for variable in ("COHERE_API_KEY", "CO_API_KEY", "COHERE_EMBED_MODEL", "CO_API_URL"):
        monkeypatch.delenv(variable, raising=False)


def backend(server: LoopbackServer, **kwargs) -> CohereBackend:
    return CohereBackend(api_key="test-key", base_url=server.url, timeout=5.0, **kwargs)


def test_embeddings_run_through_the_sdk_as_unit_rows_with_billed_tokens(server, sleeps):
    server.reply(EMBED, embed_reply([[3.0, 4.0], [0.0, 2.0]], tokens=17))
    server.reply(EMBED, embed_reply([[1.0, 1.0]], tokens=None))  # no billed units reported: 0 tokens
    model = backend(server)
    with model.phase("ingest"):
        docs = model.embed(["first text", "second text"])
    with model.phase("query"):
        query = model.embed(["a question"], input_type="query")
    np.testing.assert_allclose(docs, [[0.6, 0.8], [0.0, 1.0]], atol=1e-6)
    np.testing.assert_allclose(query, [[2 ** -0.5, 2 ** -0.5]], atol=1e-6)
    assert model.usage.counts["ingest"]["input_tokens"] == 17 and model.usage.counts["query"]["input_tokens"] == 0
    first, second = server.requests
    assert first.path == EMBED and first.headers["authorization"] == "Bearer test-key"
    assert first.json == {"texts": ["first text", "second text"], "model": "embed-english-v3.0",
                          "input_type": "search_document", "embedding_types": ["float"]}
    assert second.json["input_type"] == "search_query" and not sleeps


def test_two_hundred_texts_go_in_three_ordered_batches(server):
    server.reply(EMBED, echo_rows, times=3)
    texts = [f"t{i}" for i in range(200)]
    rows = backend(server).embed(texts)
    assert [len(r.json["texts"]) for r in server.requests] == [96, 96, 8]
    assert [t for r in server.requests for t in r.json["texts"]] == texts
    expected = np.array([[i, 1.0] for i in range(200)])
    np.testing.assert_allclose(rows, expected / np.linalg.norm(expected, axis=1, keepdims=True), atol=1e-6)


def test_rate_limit_then_success_is_retried(server, sleeps):
    server.reply(EMBED, {"message": "too many requests"}, status=429)
    server.reply(EMBED, embed_reply([[1.0, 0.0]]))
    assert backend(server).embed(["x"]).shape == (1, 2)
    assert len(server.requests) == 2 and len(sleeps) == 1


def test_a_refused_key_is_an_auth_error_naming_the_variable_without_retry(server, sleeps):
    server.reply(EMBED, {"message": "invalid api token"}, status=401)
    model = backend(server)
    with pytest.raises(AuthError, match="COHERE_API_KEY"):
        model.embed(["x"])
    assert len(server.requests) == 1 and not sleeps and model.usage.total("errors") == 1


def test_a_missing_key_fails_before_any_request(server):
    with pytest.raises(AuthError, match="COHERE_API_KEY"):
        CohereBackend(base_url=server.url).embed(["x"])
    assert server.requests == []


def test_server_errors_that_persist_become_a_provider_error(server, sleeps):
    server.reply(EMBED, {"message": "internal"}, status=500, times=3)
    with pytest.raises(ProviderError, match="after 3 attempts") as info:
        backend(server, retries=2).embed(["x"])
    assert info.value.status == 500 and len(server.requests) == 3 and len(sleeps) == 2


@pytest.mark.parametrize("bad", ["{not json", embed_reply([[1.0, 0.0]])], ids=["malformed", "rows-missing"])
def test_a_bad_body_is_a_clear_error_and_nothing_is_cached(server, sleeps, tmp_path, bad):
    server.reply(EMBED, bad)  # a body that is not JSON, or one row for two texts
    server.reply(EMBED, embed_reply([[1.0, 0.0], [0.0, 1.0]]))
    model = backend(server, cache=ResponseCache(tmp_path, "use"))
    with pytest.raises(ProviderError, match="cohere embed-english-v3.0"):
        model.embed(["a", "b"])
    assert not list(tmp_path.rglob("*.json")) and model.usage.total("errors") == 1
    np.testing.assert_allclose(model.embed(["a", "b"]), [[1.0, 0.0], [0.0, 1.0]])
    assert len(server.requests) == 2


def test_a_cached_rerun_makes_zero_requests_even_without_a_key(server, tmp_path):
    server.reply(EMBED, embed_reply([[1.0, 2.0]]))
    vector = backend(server, cache=ResponseCache(tmp_path, "use")).embed(["x"], input_type="query")
    again = CohereBackend(base_url=server.url, cache=ResponseCache(tmp_path, "replay"))
    np.testing.assert_array_equal(again.embed(["x"], input_type="query"), vector)
    assert len(server.requests) == 1 and again.usage.total("cached") == 1 and again.usage.total("calls") == 0


def test_text_tasks_say_cohere_is_for_embeddings(server):
    model = backend(server)
    with pytest.raises(NotImplementedError, match="embedding backend; use gemini/openai_compat/offline"):
        model.summarize("text")
    with pytest.raises(NotImplementedError, match="embedding backend"):
        model.agent_step([{"role": "user", "content": "hi"}], {})
    assert server.requests == []


def test_the_timeout_reaches_the_sdk(server):
    server.reply(EMBED, embed_reply([[1.0, 0.0]]), delay=3.0)
    with pytest.raises(ProviderError, match="(?i)timeout|timed out"):
        CohereBackend(api_key="k", base_url=server.url, timeout=0.2, retries=0).embed(["x"])


def test_images_go_one_per_request_as_data_uris_in_the_text_space(server):
    server.reply(EMBED, embed_reply([[0.0, 5.0]]))
    server.reply(EMBED, embed_reply([[6.0, 8.0]]))
    png, jpeg = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8, b"\xff\xd8\xff" + b"\x01" * 8
    rows = backend(server).embed_images([png, jpeg])
    assert np.allclose(rows, [[0.0, 1.0], [0.6, 0.8]])
    bodies = [r.json for r in server.requests_to(EMBED)]
    assert [b["input_type"] for b in bodies] == ["image", "image"]
    assert bodies[0]["images"][0].startswith("data:image/png;base64,")
    assert bodies[1]["images"][0].startswith("data:image/jpeg;base64,")
