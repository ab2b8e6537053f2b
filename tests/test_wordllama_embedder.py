"""WordLlama, the offline backend's default embedder, and the LSA ablation chosen by name."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid

import numpy as np
import pytest

from filegram_kit.llm import get_backend
from filegram_kit.llm.algorithms import memo
from filegram_kit.llm.algorithms.embedders import EMBEDDERS, embed_with
from filegram_kit.llm.algorithms.wordllama_embedder import DIMS, WordLlamaEmbedder
from filegram_kit.llm.cache import ResponseCache
from filegram_kit.llm.offline import OfflineBackend

TEXTS = [
    "The cat Shadow visited the vet for a vaccination.",
    "Quarterly revenue of TSMC rose 12 percent.",
    "会议纪要：下周一讨论预算。",
    "notes/2024/report_final.md",
]
RELATED = [
    ("The cat Shadow visited the vet for a vaccination.", "My cat went to the veterinarian for a shot."),
    ("Quarterly revenue rose 12 percent on strong chip demand.", "Sales grew twelve percent this quarter."),
    ("Move the old drafts into the archive folder.", "Archive the outdated draft files in a folder."),
]


@pytest.fixture(scope="module")
def model() -> WordLlamaEmbedder:
    return WordLlamaEmbedder()


def test_rows_are_unit_length_float32(model):
    vectors = model.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 256) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_and_blank_text_is_the_zero_row(model):
    vectors = model.embed(["", "a real sentence", "   \n\t", ""])
    assert not vectors[[0, 2, 3]].any()
    assert abs(float(np.linalg.norm(vectors[1])) - 1.0) < 1e-5
    assert model.embed([]).shape == (0, 256)
    with pytest.raises(TypeError, match="list of texts"):
        model.embed("one string, not a list")  # type: ignore[arg-type]


def test_rows_are_byte_identical_run_to_run_and_alone_or_in_a_batch(model):
    batch = model.embed(TEXTS + TEXTS[:2])
    assert batch.tobytes() == model.embed(TEXTS + TEXTS[:2]).tobytes()
    alone = np.vstack([model.embed([t]) for t in TEXTS])
    assert alone.tobytes() == batch[:len(TEXTS)].tobytes()
    assert batch[len(TEXTS):].tobytes() == batch[:2].tobytes()  # a repeated text in the same batch
    reordered = model.embed(TEXTS[::-1])
    assert reordered[::-1].tobytes() == batch[:len(TEXTS)].tobytes()


def test_related_sentences_are_closer_than_unrelated_ones(model):
    left = model.embed([a for a, _ in RELATED])
    right = model.embed([b for _, b in RELATED])
    cosine = left @ right.T  # diagonal: paraphrases; off-diagonal: different topics
    for i in range(len(RELATED)):
        assert cosine[i, i] > 0.3
        assert cosine[i, i] > max(np.delete(cosine[i], i)) + 0.2
        assert cosine[i, i] > max(np.delete(cosine[:, i], i)) + 0.2


def test_matryoshka_prefixes_are_the_normalised_first_columns(model):
    full = model.embed(TEXTS)
    for dim in DIMS:
        rows = WordLlamaEmbedder(dim).embed(TEXTS)
        prefix = full[:, :dim] / np.linalg.norm(full[:, :dim], axis=1, keepdims=True)
        assert rows.shape == (len(TEXTS), dim)
        np.testing.assert_allclose(rows, prefix, atol=1e-5)
    small = WordLlamaEmbedder(64).embed([a for a, _ in RELATED] + [b for _, b in RELATED])
    assert float(small[0] @ small[3]) > float(small[0] @ small[4])  # still semantic at 64-D
    with pytest.raises(ValueError, match="64, 128, 256"):
        WordLlamaEmbedder(100)


def test_memo_computes_each_distinct_text_once(monkeypatch):
    fresh = [f"memo probe {uuid.uuid4().hex}", f"another memo probe {uuid.uuid4().hex}"]
    seen: list[list[str]] = []
    real = WordLlamaEmbedder.embed

    def counting(self, texts):
        seen.append(list(texts))
        return real(self, texts)

    monkeypatch.setattr(WordLlamaEmbedder, "embed", counting)
    first = embed_with("wordllama", [fresh[0], fresh[1], fresh[0]], dim=128)
    again = embed_with("wordllama", [fresh[1], fresh[0]], dim=128)
    assert seen == [fresh]
    assert first[2].tobytes() == first[0].tobytes() and again.tobytes() == first[[1, 0]].tobytes()
    computed = real(WordLlamaEmbedder(128), [fresh[0], fresh[1], fresh[0]])
    assert first.tobytes() == computed.astype(np.float64).tobytes()  # float32 rows, handed out as float64
    embed_with("wordllama", [fresh[0]], dim=64)  # another dimension is another row
    assert seen == [fresh, [fresh[0]]]


def test_the_offline_backend_embeds_with_wordllama_by_default_rounded_to_6_decimals():
    backend = get_backend("offline")
    assert backend.embedder == "wordllama" == EMBEDDERS[0] and backend.params()["embedder"] == "wordllama"
    vectors = backend.embed(TEXTS)
    np.testing.assert_allclose(vectors, WordLlamaEmbedder().embed(TEXTS), atol=6e-7)
    scaled = vectors.astype(np.float64) * 1e6
    assert np.abs(scaled - np.round(scaled)).max() < 0.05  # six decimals, nothing finer
    assert get_backend("offline", dim=64).embed(TEXTS).shape == (len(TEXTS), 64)


def test_unknown_embedder_or_dimension_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown offline embedder 'bert'.*'wordllama', 'lsa'"):
        get_backend("offline", embedder="bert")
    with pytest.raises(ValueError, match="unknown offline embedder"):
        OfflineBackend(embedder="LSA")
    with pytest.raises(ValueError, match="embedder='lsa'"):
        get_backend("offline", dim=32)  # wordllama has 64/128/256 only
    assert get_backend("offline", embedder="lsa", dim=32).embed(["x y z"]).shape == (1, 32)


def test_lsa_ablation_is_selectable_and_differs_from_the_default():
    lsa, default = get_backend("offline", embedder="lsa"), get_backend("offline")
    assert lsa.embedder == "lsa" and lsa.params() != default.params()
    a, b = lsa.embed(TEXTS[:2]), default.embed(TEXTS[:2])
    assert a.shape == b.shape == (2, 256)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-4)
    assert float(np.abs(a - b).max()) > 0.1  # another space, not the same vectors
    from filegram_kit.llm.algorithms.embedding import embed as lsa_embed

    np.testing.assert_allclose(a, lsa_embed(TEXTS[:2]), atol=6e-7)


def test_the_embedder_is_part_of_the_cache_key(tmp_path):
    cache = ResponseCache(tmp_path, "use")
    lsa = get_backend("offline", embedder="lsa", cache=cache).embed(["the cat Shadow"])
    default = get_backend("offline", cache=cache).embed(["the cat Shadow"])
    assert cache.stores == 2 and cache.hits == 0 and not np.allclose(lsa, default)
    replay = get_backend("offline", cache=ResponseCache(tmp_path, "replay"))
    assert replay.embed(["the cat Shadow"]).tobytes() == default.tobytes()
    assert replay.usage.total("cached") == 1 and replay.usage.total("calls") == 0


NO_NETWORK_PROBE = """
import hashlib, json, socket, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args)[:80])
    raise OSError("network disabled by the test")
socket.socket.connect = socket.socket.connect_ex = refuse
socket.create_connection = socket.getaddrinfo = refuse
from filegram_kit.llm import get_backend
vectors = get_backend("offline").embed(json.loads(sys.argv[1]))
print(json.dumps({"attempts": attempts, "sha": hashlib.sha256(vectors.tobytes()).hexdigest()}))
"""


def test_loading_touches_no_network_and_bytes_match_across_processes(tmp_path):
    """A fresh process with sockets disabled, an empty HOME and one thread loads the shipped weights
    (no download, no cache folder) and gets the same bytes as this process."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "HF_HUB_OFFLINE": "1", "RAYON_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", NO_NETWORK_PROBE, json.dumps(TEXTS)], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["attempts"] == []
    assert not (tmp_path / "home").exists() and not (tmp_path / "cache").exists()  # nothing written there
    here = get_backend("offline").embed(TEXTS)
    assert result["sha"] == hashlib.sha256(here.tobytes()).hexdigest()


def test_the_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(memo, "MEMO_SIZE", 3)
    texts = [f"bounded memo {i} {uuid.uuid4().hex}" for i in range(5)]
    embed_with("wordllama", texts, dim=64)
    assert len(memo._memo) <= 3
