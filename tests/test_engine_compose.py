"""What the offline agent writes: facts from what it read, styled documents, real edits, names."""

from __future__ import annotations

import numpy as np
import pytest

from filegram_kit.engine.compose import Fact, Style, compose_report, extract_fact, markdown_table, revise

EMAIL = """\
    1\tFrom: Daniel Chen <daniel@example.com>
    2\tTo: Emily Wong <emily@example.com>
    3\tSubject: Capex guidance - quick question
    4\tMessage-ID: <abc@example.com>
    5\tContent-Type: text/plain; charset="utf-8"
    6\t
    7\tHi Emily, management guided capex to a range near 18.4% for
    8\tnext quarter. Follow up with Priya before 3 May.
    9\tRevenue: 12,400 for the quarter.
"""
CSV = "    1\tdate,company,metric,value\n    2\t2024-01-09,Grab Holdings,ROE,72\n    3\t2024-04-11,Nvidia,ROE,92\n"


def test_mail_headers_are_not_facts_but_the_subject_is_the_title():
    fact = extract_fact("inbox/capex.eml", EMAIL)
    assert fact.title == "Capex guidance - quick question"
    assert not [line for line in fact.lines if "Message-ID" in line or "Content-Type" in line]
    # the wrapped sentence is whole again
    assert "Hi Emily, management guided capex to a range near 18.4% for next quarter." in fact.lines
    assert ("Revenue", 12400.0) in fact.numbers


def test_calendar_properties_give_title_and_description_only():
    ics = ("BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART:20240118T170000\nSUMMARY:Client meeting with Rajesh Kumar\n"
           "LOCATION:Legal Aid Bureau\nDESCRIPTION:Prepare a chronology of the witness statements for Goh v. Goh\n"
           " before the next hearing.\nEND:VEVENT\nEND:VCALENDAR\n")
    fact = extract_fact("meeting.ics", ics)
    assert fact.title == "Client meeting with Rajesh Kumar"
    assert fact.lines == ["Prepare a chronology of the witness statements for Goh v. Goh before the next hearing."]


def test_csv_rows_become_labelled_numbers():
    fact = extract_fact("data/metrics.csv", CSV)
    assert fact.numbers == [("Grab Holdings ROE", 72.0), ("Nvidia ROE", 92.0)]


def facts(n=6):
    return [Fact(f"doc{i}.md", f"Document {i}", [f"Sentence {i}.{j} about revenue of {i * 10 + j} units." for j in
                                                   range(5)], [(f"metric {i}", float(i))]) for i in range(n)]


def test_reports_follow_the_style_knobs():
    rng = np.random.default_rng(0)
    long = compose_report("Topic", facts(), Style(heading_depth=4, target_chars=4000, tables=1,
                                                   figures=("figures/f1.png",)), rng)
    short = compose_report("Topic", facts(), Style(heading_depth=1, target_chars=400, bullets=True), rng)
    assert len(long) > 2 * len(short)
    assert "#### " in long and "\n## " not in short and "|---|" in long and "![Figure 1](figures/f1.png)" in long
    assert "|---|" not in short and short.count("\n- ") >= 2
    body = [line for line in long.splitlines() if line.startswith(("Sentence", "Furthermore", "Also", "Note"))]
    assert len(body) == len(set(body))  # no sentence twice


def test_chinese_personas_write_chinese_scaffolding():
    text = compose_report("总结", facts(2), Style(lang="zh", tone="L", heading_depth=2), np.random.default_rng(1))
    assert "## 概述" in text and "资料来源" in text and "。" in text


def test_markdown_table_has_a_separator_per_column():
    table = markdown_table(facts(3), "en").splitlines()
    assert table[0] == "| Source | Metric | Value |" and table[1] == "|---|---|---|" and len(table) == 5


def test_revise_changes_about_the_requested_number_of_lines():
    text = "# T\n\n" + "".join(f"line {i} of the report\n" for i in range(40))
    for size in (2, 8, 20):
        old, new = revise(text, size, np.random.default_rng(size))
        assert text.count(old) == 1 and old != new
        changed = len(old.splitlines()) + len(new.splitlines())
        assert size <= changed <= 2 * size + 2


@pytest.mark.parametrize("pack_name", ["A", "B"])
def test_names_follow_the_naming_tier(pack_name):
    from types import SimpleNamespace

    from filegram_kit.engine.naming import file_name
    from filegram_kit.engine.recorder import SimClock
    from filegram_kit.engine.style_packs import get_pack
    from filegram_kit.traces.schema import Tier

    pack = get_pack(pack_name)
    noted = set()

    def name(tier, lang="en"):
        policy = SimpleNamespace(separator="_", naming=tier, lang=lang, note=noted.add)
        agent = SimpleNamespace(policy=policy, rng=np.random.default_rng(0), clock=SimClock(1.77e12), pack=pack,
                                spelling={})
        return file_name(agent, "quarterly work summary report for the team")

    systematic, semi, adhoc = name(Tier.L), name(Tier.M), name(Tier.R)
    assert len(systematic) - 3 >= 25 and systematic[:4].isdigit()  # date prefix, long and descriptive
    assert 12 <= len(semi) - 3 <= 25 and pack.separator("_") in semi
    assert len(adhoc) - 3 <= 12
    assert noted == {"naming"}  # naming the file is what makes the naming attribute show
