"""Backend settings from filegram.toml and the environment; keys only from the environment."""

from __future__ import annotations

import pytest

from filegram_kit.llm import config


@pytest.fixture
def toml(tmp_path, monkeypatch):
    path = tmp_path / "filegram.toml"
    monkeypatch.setenv(config.CONFIG_ENV, str(path))
    return path


def test_file_settings_then_environment_overrides_then_key(toml):
    toml.write_text('[backends.openai_compat]\nbase_url = "http://localhost:9/v1"\nmodel = "file-model"\n')
    env = {"OPENAI_MODEL": "env-model", "OPENAI_API_KEY": "sk-test"}
    settings = config.backend_settings("openai_compat", environ=env)
    assert settings == {"base_url": "http://localhost:9/v1", "model": "env-model", "api_key": "sk-test"}
    assert config.backend_settings("gemini", environ={"GOOGLE_API_KEY": "g"})["api_key"] == "g"
    assert "api_key" not in config.backend_settings("cohere", environ={})


def test_a_key_in_the_file_is_refused(toml):
    toml.write_text('[backends.gemini]\napi_key = "AIza-secret"\n')
    with pytest.raises(config.ConfigError, match="GEMINI_API_KEY"):
        config.backend_settings("gemini", environ={})


def test_prices_default_and_from_the_file(toml):
    toml.write_text('[prices."my-local-model"]\ninput = 0.5\noutput = 1.5\n[prices."gemini-2.5-flash"]\ninput = 9\n')
    assert config.price_for("my-local-model") == {"input": 0.5, "output": 1.5}
    assert config.price_for("gemini-2.5-flash") == {"input": 9.0, "output": 0.0}
    assert config.price_for("gpt-4o-mini") == config.DEFAULT_PRICES["gpt-4o-mini"]
    assert config.price_for("unknown-model") == {}


def test_broken_or_missing_config_files_are_clear_errors(toml, monkeypatch, tmp_path):
    toml.write_text("[backends\n")
    with pytest.raises(config.ConfigError, match="filegram.toml"):
        config.load_config()
    monkeypatch.setenv(config.CONFIG_ENV, str(tmp_path / "nope.toml"))
    with pytest.raises(config.ConfigError, match="no such file"):
        config.load_config()
