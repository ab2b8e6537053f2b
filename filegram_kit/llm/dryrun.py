"""What a run would cost, before it spends anything: `--dry-run`.

`DryRunBackend("gemini")` answers every typed task with the offline algorithms (so the pipeline
runs end to end) while it renders the prompt the real backend would receive and counts its tokens
(`filegram_kit.util.tokens.estimate_tokens`; the offline answer's length stands in for the reply). The usage
meter then holds calls and estimated tokens per phase, and `cost()` prices them with the target
model's entry in the price table (`filegram.toml` [prices] or the defaults in `llm/config.py`).
Cache hits of a real run cost nothing, so a dry run is an upper bound for a warm cache.
"""

from __future__ import annotations

from typing import Any

from ..util.tokens import estimate_tokens
from .base import Backend, Computed, estimated_tokens, get_backend
from .config import backend_settings, price_for

__all__ = ["DryRunBackend", "estimate_tokens"]


class DryRunBackend(Backend):
    """Offline answers, the target backend's token bill."""

    name = "dryrun"

    def __init__(self, target: str = "gemini", model: str | None = None, **kwargs: Any):
        target_model = model or backend_settings(target).get("model") or _default_model(target)
        super().__init__(target_model, **{k: v for k, v in kwargs.items() if k != "cache"})
        self.target = target
        self._offline = get_backend("offline")

    def params(self) -> dict[str, Any]:
        return {**super().params(), "target": self.target}

    def _compute(self, task: str, inputs: dict[str, Any], params: dict[str, Any]) -> Computed:
        answer = self._offline._compute(task, inputs, params).value
        return Computed(answer, *estimated_tokens(task, inputs, params, answer))

    def report(self) -> str:
        """Calls, tokens and dollars per phase, as `--dry-run` prints them."""
        prices = price_for(self.model)
        lines = [f"dry run for {self.target} ({self.model}); prices per 1M tokens: "
                 + (f"${prices['input']:g} in, ${prices['output']:g} out" if prices else "unknown (add [prices])")]
        for phase, row in sorted(self.usage.counts.items()):
            phase_cost = (row["input_tokens"] * prices.get("input", 0) + row["output_tokens"] * prices.get("output", 0))
            lines.append(f"  {phase:<9}{row['calls']:>8} calls{row['input_tokens']:>12,} tokens in"
                         f"{row['output_tokens']:>11,} out   ${phase_cost / 1e6:,.2f}")
        total = self.usage.cost(prices) if prices else float("nan")
        lines.append(f"  total    {self.usage.total('calls'):>8} calls{self.usage.total('input_tokens'):>12,} tokens in"
                     f"{self.usage.total('output_tokens'):>11,} out   ${total:,.2f}")
        return "\n".join(lines)


def _default_model(target: str) -> str:
    from .base import BACKENDS

    module_name, _, class_name = BACKENDS[target].partition(":")
    try:
        import importlib

        return getattr(importlib.import_module(module_name), class_name).default_model
    except (ImportError, AttributeError):
        return target
