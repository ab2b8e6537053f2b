"""Backend settings and prices: `filegram.toml`, overridden by environment variables.

    # filegram.toml (working directory or project root; FILEGRAM_CONFIG=path picks another)
    [backends.gemini]
    model = "gemini-2.5-flash"
    [backends.openai_compat]
    base_url = "http://localhost:8000/v1"
    model = "qwen2.5-7b-instruct"
    [prices."gemini-2.5-flash"]      # US$ per million tokens
    input = 0.30
    output = 2.50

Keys are never read from the file: only from the environment (GEMINI_API_KEY or GOOGLE_API_KEY,
COHERE_API_KEY, OPENAI_API_KEY), so a committed config cannot leak them. OPENAI_BASE_URL and
OPENAI_MODEL work as the official OpenAI client reads them.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

CONFIG_ENV = "FILEGRAM_CONFIG"
# List prices (US$ per 1M tokens) when this table was written; edit [prices] in filegram.toml for yours.
DEFAULT_PRICES: dict[str, dict[str, float]] = {
    "gemini-2.5-flash": {"input": 0.30, "output": 2.50},
    "gemini-2.5-pro": {"input": 1.25, "output": 10.00},
    "embed-english-v3.0": {"input": 0.10, "output": 0.0},
    "gpt-4o-mini": {"input": 0.15, "output": 0.60},
    "gpt-4.1": {"input": 2.00, "output": 8.00},
    "offline": {"input": 0.0, "output": 0.0},
}
KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "cohere": ("COHERE_API_KEY", "CO_API_KEY"),
    "openai_compat": ("OPENAI_API_KEY",),
}
ENV_SETTINGS: dict[str, dict[str, str]] = {  # backend -> setting -> environment variable
    "openai_compat": {"base_url": "OPENAI_BASE_URL", "model": "OPENAI_MODEL",
                      "embedding_model": "OPENAI_EMBEDDING_MODEL", "tool_model": "OPENAI_TOOL_MODEL",
                      "concurrency": "OPENAI_CONCURRENCY",
                      "timeout": "OPENAI_TIMEOUT"},
    "gemini": {"model": "GEMINI_MODEL"}, "cohere": {"model": "COHERE_EMBED_MODEL"},
}


class ConfigError(ValueError):
    """A filegram.toml that cannot be read, or a setting of the wrong kind."""


def config_path() -> Path | None:
    """The config file in use: $FILEGRAM_CONFIG, ./filegram.toml, or the checkout's filegram.toml."""
    if os.environ.get(CONFIG_ENV):
        path = Path(os.environ[CONFIG_ENV])
        if not path.is_file():
            raise ConfigError(f"{CONFIG_ENV}={path}: no such file")
        return path
    for folder in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (folder / "filegram.toml").is_file():
            return folder / "filegram.toml"
    return None


@cache
def _read(path: Path | None, mtime: float) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load_config() -> dict[str, Any]:
    path = config_path()
    return _read(path, path.stat().st_mtime if path else 0.0)


def backend_settings(name: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Settings for backend `name`: the file's [backends.<name>] table, then environment overrides, then the key."""
    env = os.environ if environ is None else environ
    section = load_config().get("backends", {}).get(name, {})
    if not isinstance(section, dict):
        raise ConfigError(f"[backends.{name}] must be a table, got {type(section).__name__}")
    if "api_key" in section:
        raise ConfigError(f"[backends.{name}] holds an api_key: keys belong in the environment "
                          f"({' or '.join(KEY_VARIABLES.get(name, ('the provider variable',)))}), not in a file")
    settings = dict(section)
    for setting, variable in ENV_SETTINGS.get(name, {}).items():
        if env.get(variable):
            settings[setting] = env[variable]
    key = next((env[v] for v in KEY_VARIABLES.get(name, ()) if env.get(v)), None)
    if key:
        settings["api_key"] = key
    return settings


def price_for(model: str) -> dict[str, float]:
    """US$ per million input/output tokens for a model ({} when unknown: cost then shows as unknown)."""
    table = {**DEFAULT_PRICES, **load_config().get("prices", {})}
    entry = table.get(model, {})
    return {"input": float(entry.get("input", 0.0)), "output": float(entry.get("output", 0.0))} if entry else {}
