"""--dry-run: offline answers with the target backend's token bill, nothing spent."""

from __future__ import annotations

import pytest

from filegram_kit.llm import get_backend
from filegram_kit.llm.config import price_for
from filegram_kit.llm.dryrun import estimate_tokens
from filegram_kit.llm.tasks import TASKS, options_text


def test_answers_are_the_offline_ones_and_tokens_the_rendered_prompt():
    dry, offline = get_backend("dryrun", target="gemini"), get_backend("offline")
    args = ("Which growth?", ["8%", "12%"], "Revenue grew 12% in Q3.")
    assert dry.answer_mcq(*args) == offline.answer_mcq(*args)
    prompt = TASKS["answer_mcq"].render(question=args[0], options=options_text(args[1]), context=args[2])
    assert dry.usage.total("input_tokens") == estimate_tokens(prompt) and dry.usage.total("output_tokens") > 0
    assert dry.model == "gemini-2.5-flash" and offline.usage.total("input_tokens") == 0


def test_the_attribute_judge_is_billed_for_its_rendered_prompt():
    dry, offline = get_backend("dryrun", target="gemini"), get_backend("offline")
    args = ("Describe this user's naming.", "naming", "Ad-hoc", "Files get arbitrary names.")
    assert dry.judge_attribute(*args) == offline.judge_attribute(*args)
    prompt = TASKS["judge_attribute"].render(question=args[0], label="naming", values="Systematic | Semi-structured "
                                             "| Ad-hoc", reference=args[2], answer=args[3])
    assert dry.usage.total("input_tokens") == estimate_tokens(prompt)


def test_cost_uses_the_target_models_prices():
    dry = get_backend("dryrun", target="gemini")
    with dry.phase("judge"):
        dry.judge_likert("Revenue grew 12% in Q3.", "It grew 12%.")
    prices = price_for("gemini-2.5-flash")
    row = dry.usage.counts["judge"]
    assert dry.usage.cost(prices) == pytest.approx((row["input_tokens"] * prices["input"]
                                                     + row["output_tokens"] * prices["output"]) / 1e6)
    assert "judge" in dry.report() and "gemini-2.5-flash" in dry.report()


def test_cli_dry_run_prints_the_bill_and_keeps_nothing(tmp_path, capsys, monkeypatch):
    from filegram_kit.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["corpus", "--agent", "llm", "--backend", "openai_compat", "--dry-run", "--profiles", "p3",
                 "--tasks", "T-09"]) == 0
    out = capsys.readouterr().out
    assert "dry run for openai_compat" in out and "generate" in out and "total" in out
    assert list(tmp_path.iterdir()) == []
    assert main(["corpus", "--dry-run", "--profiles", "p3", "--tasks", "T-09"]) == 2
