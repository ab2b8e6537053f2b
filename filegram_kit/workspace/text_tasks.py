"""Bespoke documents for the text-only Iterate/Maintain/Synthesize tasks (T-09 to T-15).

Their prompts name particular files and planted structure (a long report to condense, a knowledge
base to extend, cross-file errors, contradictory reviewers, tangled versions, opposite analyses),
so these workspaces are written document by document, still drawn from the task's seeded rng.
Planted facts are recorded in `InputFile.flags` so that checks need not re-derive them.
"""

from __future__ import annotations

import datetime as dt

from .content import Composer, InputFile, csv_text

ACADEMIC = (
    "The present analysis indicates that {topic} accounted for approximately {pct}% of incremental demand in {year}.",
    "It should be noted that {org} expanded capacity in {place} by {pct}% over the review period.",
    "Survey respondents (n = {num}) cited {topic} as the principal constraint on adoption.",
    "A regression of spending on {metric} yields a coefficient of 0.{num}, significant at the 5% level.",
    "Furthermore, the literature suggests that {topic} is associated with higher {metric} in mature markets.",
    "Consequently, {org} and {org2} may be expected to converge on similar {metric} by {year}.",
    "In contrast to earlier studies, our interviews with {person} emphasise {topic} over pricing.",
    "Taken together, these findings imply a compound annual growth rate of {pct}% for the segment.",
    "A sensitivity analysis shows that a shift in {topic} of {pct}% changes the base case by {money}.",
    "This observation is, however, subject to the limitations of a sample drawn mainly from {place}.",
)
T09_SECTIONS = ("Abstract", "1. Introduction", "2. Methodology", "3. Market size and growth",
                "4. Competitive landscape", "5. Customer adoption", "6. Regulatory environment", "7. Risks",
                "8. Conclusions and recommendations")


def t09_long_report(c: Composer) -> list[InputFile]:
    """One ~2000-word academic report: the document the task condenses to an executive brief."""
    region = c.pick(("Southeast Asia", "Greater China", "India", "the Gulf states"))
    sector = c.pick(("cloud infrastructure", "semiconductor packaging", "digital payments", "data centres"))
    title = f"{sector.capitalize()} in {region}: a market assessment"
    lines = [f"# {title}", "", f"Research report, {c.fill('{date}')}. Authors: {c.fill('{person} and {person2}')}."]
    for heading in T09_SECTIONS:
        lines += ["", f"## {heading}"]
        for _ in range(1 if heading == "Abstract" else 3):
            lines += [" ".join(c.fill(c.pick(ACADEMIC + c.theme.sentences)) for _ in range(5)), ""]
    text = "\n".join(lines).rstrip() + "\n"
    return [c.file("md", path="market_assessment_report.md", title=title, text=text)]


KB_PAGES = {
    "fundamental_analysis_framework.md": ("Fundamental Analysis Framework", (
        ("1. Business quality", "Understand what {org} sells, to whom, and why customers stay."),
        ("2. Financial health", "Check revenue growth, margins and leverage; {org} net debt is {money}."),
        ("3. Management", "Read the last three annual letters; compare guidance with delivery."),
        ("4. Valuation", "Relative valuation only: compare P/E and P/B with peers such as {org2}."))),
    "financial_metrics_reference.md": ("Financial Metrics Reference", (
        ("P/E ratio", "Price / earnings per share. Example: {org} at {num}x trailing earnings."),
        ("P/B ratio", "Price / book value per share; useful for banks such as DBS Group."),
        ("ROE", "Net income / shareholders' equity; {org} reported {pct}% last year."),
        ("Gross margin", "Gross profit / revenue; watch the trend over {num} quarters."))),
    "industry_analysis_template.md": ("Industry Analysis Template", (
        ("Market size", "Total addressable market, growth rate (e.g. {pct}% a year), key regions."),
        ("Five forces", "Rivalry, new entrants, substitutes, supplier power, buyer power."),
        ("Value chain", "Where margins sit along the chain; who captures {topic}."),
        ("Key players", "Leaders such as {org} and {org2}; market shares and strategies."))),
    "case_study.md": ("Case Study: applying the framework to {org}", (
        ("Thesis", "{org} benefits from {topic}; we track it since {date}."),
        ("Metrics", "P/E {num}x, ROE {pct}%, net cash {money}."),
        ("Verdict", "Hold; revisit after the {quarter} results."))),
}


def t10_knowledge_base(c: Composer) -> list[InputFile]:
    """A pre-built 'Investment Analysis Methodology' KB: index plus four pages (no DCF, no technical analysis)."""
    files, links = [], []
    for path, (title_tpl, sections) in KB_PAGES.items():
        title = c.fill(title_tpl)
        lines = [f"# {title}", "", f"_Last updated {c.fill('{date}')}_"]
        for heading, body in sections:
            lines += ["", f"## {heading}", c.fill(body), f"- {c.fill(c.pick(c.theme.sentences))}"]
        files.append(c.file("md", path=path, title=title, text="\n".join(lines) + "\n"))
        links.append(f"- [{title}]({path})")
    index = ["# Investment Analysis Methodology - Index", "", "Personal knowledge base. Start here.", "",
             "## Modules", *links, "", "## How to use", "Read the framework first, then look up metrics as needed.",
             "Add a new module as its own file and link it here.", "", f"_Index updated {c.fill('{date}')}_"]
    files.insert(0, c.file("md", path="index.md", title="Investment Analysis Methodology - Index",
                           text="\n".join(index) + "\n"))
    return files


T11_FILES = {
    "project_overview.md": ("Project Overview", ("ceo", "project", "budget", "launch", "client")),
    "financial_summary.md": ("Financial Summary", ("cfo", "budget", "revenue", "headcount")),
    "team_directory.md": ("Team Directory", ("ceo", "cfo", "lead", "headcount")),
    "meeting_notes.md": ("Meeting Notes", ("ceo", "lead", "launch", "client")),
    "project_timeline.md": ("Project Timeline", ("project", "kickoff", "launch", "lead")),
    "client_proposal.md": ("Client Proposal", ("client", "budget", "launch", "project")),
    "quarterly_report.md": ("Quarterly Report", ("revenue", "headcount", "cfo", "kickoff")),
}
T11_LINES = {
    "ceo": "CEO: {v}", "cfo": "CFO: {v}", "lead": "Project lead: {v}", "project": "Flagship project: {v}",
    "budget": "Approved project budget: {v}", "launch": "Planned launch date: {v}", "client": "Anchor client: {v}",
    "revenue": "Q3 revenue: {v}", "headcount": "Total headcount: {v}", "kickoff": "Project kickoff: {v}",
}


def _t11_facts(c: Composer) -> dict[str, tuple[str, str]]:
    """Each fact as (correct value, planted wrong value): misspelt names, shifted figures and dates."""
    misspell = {"Sarah Johnson": "Sara Johnston", "Michael Brennan": "Micheal Brenan", "Laura Chen": "Lara Chen",
                "Priya Natarajan": "Priya Natrajan", "Kevin Osei": "Kevin Osie"}
    ceo, cfo, lead = c.sample(tuple(misspell), 3)
    budget, revenue = int(c.rng.integers(18, 40)) / 10, int(c.rng.integers(40, 90)) / 10
    heads = int(c.rng.integers(40, 90))
    launch = c.day()
    kickoff = launch - dt.timedelta(days=int(c.rng.integers(90, 240)))
    shift = dt.timedelta(days=int(c.rng.integers(10, 40)))
    project = c.pick(("Project Orion", "Project Helix", "Project Atlas"))
    client = c.pick(("Meridian Health", "Coastal Bank", "Nordic Retail Group"))
    return {"ceo": (ceo, misspell[ceo]), "cfo": (cfo, misspell[cfo]), "lead": (lead, misspell[lead]),
            "project": (project, project.replace("Project", "Proj.") + " 2"),
            "budget": (f"${budget:.1f}M", f"${budget + 0.4:.1f}M"),
            "revenue": (f"${revenue:.1f}M", f"${revenue - 1.1:.1f}M"), "headcount": (str(heads), str(heads + 7)),
            "launch": (f"{launch:%d %B %Y}", f"{launch + shift:%d %B %Y}"),
            "kickoff": (f"{kickoff:%d %B %Y}", f"{kickoff - shift:%d %B %Y}"), "client": (client, client + " Ltd")}


def t11_inconsistent_docs(c: Composer) -> list[InputFile]:
    """Seven TechVista Inc documents that share facts; 5 of the mentions carry a planted error."""
    facts = _t11_facts(c)
    mentions = [(path, key) for path, (_, keys) in T11_FILES.items() for key in keys]
    planted = {mentions[i] for i in c.rng.choice(len(mentions), size=5, replace=False)}
    files = []
    for path, (heading, keys) in T11_FILES.items():
        title = f"TechVista Inc - {heading}"
        lines, flags = [f"# {title}", "", f"Prepared {c.fill('{date}')}", ""], []
        for key in keys:
            right, wrong = facts[key]
            value = wrong if (path, key) in planted else right
            if value == wrong:
                flags.append(f"planted-error:{key}:{wrong} (correct: {right})")
            lines.append("- " + T11_LINES[key].format(v=value))
        lines += ["", "## Notes", *c.sentences(int(c.rng.integers(3, 6)))]
        files.append(c.file("md", path=path, title=title, text="\n".join(lines) + "\n", flags=tuple(flags)))
    return files


STYLES = ("hash", "bold", "emoji", "bracket")


def styled_note(c: Composer, title: str, style: str, ext: str) -> str:
    """A note in one of four clashing house styles (headings, dates, bullets, status marks)."""
    d = c.day()
    date = {"hash": f"{d:%Y-%m-%d}", "bold": f"{d:%B} {d.day}, {d.year}", "emoji": f"{d:%d/%m/%Y}",
            "bracket": f"{d:%Y.%m.%d}"}[style]
    head = {"hash": "# {}", "bold": "**{}**", "emoji": "📌 {} 📌", "bracket": "【{}】"}[style]
    bullet = {"hash": "- ", "bold": "* ", "emoji": "• ", "bracket": "1) "}[style]
    done, todo = {"hash": ("[x]", "[ ]"), "bold": ("✅", "☐"), "emoji": ("✅", "⬜"), "bracket": ("[x]", "☐")}[style]
    lines = [head.format(title), f"Date: {date}", ""]
    for heading in c.sample(("Agenda", "Updates", "Action items", "Notes"), int(c.rng.integers(2, 4))):
        lines += [head.format(heading) if style != "emoji" else f"━━━ {heading} ━━━"]
        for s in c.sentences(int(c.rng.integers(2, 5))):
            mark = (done if c.rng.random() < 0.5 else todo) + " " if heading == "Action items" else ""
            lines.append(f"{bullet}{mark}{s}")
        lines.append("")
    return "\n".join(lines)


def t12_mixed_formats(c: Composer) -> list[InputFile]:
    """Shared team folders whose 12 text files use four clashing styles, plus an incomplete style reference."""
    ref = ["# Team formatting reference (draft)", "", "- Headings: use # and ## (Markdown).",
           "- Dates: ISO 8601, e.g. 2024-03-12.", "- Lists: hyphen bullets.", "",
           "TODO: status markers, file naming, emails and PDFs are not covered yet."]
    files = [c.file("md", path="reference/team_formatting_reference.md", title="Team formatting reference (draft)",
                    text="\n".join(ref) + "\n")]
    plan = [("meeting_notes", "md"), ("meeting_notes", "txt"), ("meeting_notes", "txt"), ("personal", "md"),
            ("personal", "txt"), ("work", "md"), ("work", "md"), ("work", "txt"), ("work", "txt"),
            ("work", "txt"), ("reference", "txt")]
    for folder, ext in plan:
        title, style = c.title("note"), c.pick(STYLES)
        files.append(c.file(ext, folder=folder, title=title, text=styled_note(c, title, style, ext),
                            flags=(f"style:{style}",)))
    return files


T13_PAIRS = (
    ("Expand the methodology section; the sampling approach is unclear.",
     "The methodology section is far too long; cut it to one paragraph."),
    ("Use a more formal, academic tone throughout.", "The tone is too academic for our readers; make it plainer."),
    ("Add more charts to support the findings.", "Remove the charts; the tables are enough."),
)
T13_SINGLE = ("Check the {metric} figure in the findings against the source data.",
              "The executive summary should mention {topic}.", "Typo in section 3: '{org}' is misspelt.",
              "Add a recommendation about {topic}.", "Cite the {place} survey from {date}.")


def t13_review_feedback(c: Composer) -> list[InputFile]:
    """A research report and three reviewers, two of whom contradict each other on each planted pair."""
    title = f"Research report: {c.fill('{topic}')}"
    report = c.report(title, sections=4).splitlines()
    report[0] = f"# {title}"
    files = [c.file("md", path="original_report.md", title=title, text="\n".join(report) + "\n")]
    comments: dict[int, list[str]] = {1: [], 2: [], 3: []}
    flags: dict[int, list[str]] = {1: [], 2: [], 3: []}
    for a, b in T13_PAIRS:
        first, second = (int(x) for x in c.rng.choice([1, 2, 3], size=2, replace=False))
        comments[first].append(a)
        comments[second].append(b)
        flags[first].append(f"contradicts:reviewer{second}")
    for r in (1, 2, 3):
        comments[r] += [c.fill(t) for t in c.sample(T13_SINGLE, 2)]
        order = c.rng.permutation(len(comments[r]))
        body = [f"{i + 1}. {comments[r][j]}" for i, j in enumerate(order)]
        name = c.fill("{person}")
        text = "\n".join([f"# Feedback from reviewer {r} ({name})", "", f"Received {c.fill('{date}')}", "", *body])
        files.append(c.file("md", path=f"feedback_reviewer{r}.md", title=f"Feedback from reviewer {r} ({name})",
                            text=text + "\n", flags=tuple(flags[r])))
    return files


def t14_versions(c: Composer) -> list[InputFile]:
    """A report in six tangled versions plus review comments, change notes and reference data.

    draft -> v1 -> v2 -> final -> final_revised each add or change something; LATEST_backup is,
    despite its name, the v2 body under a newer header.
    """
    topic = c.fill("{org}")
    sections = [c.sentences(3) for _ in range(4)]
    conclusion, revised = c.sentences(2), c.fill("Revised figure: budget {money}.")
    bodies = {"draft": sections[:2], "v1": sections[:3], "v2": sections, "final": [*sections, conclusion],
              "final_revised": [[revised, *sections[0][1:]], *sections[1:], conclusion]}
    names = [("draft", "draft"), ("v1", "v1"), ("v2", "v2"), ("final", "final"),
             ("final_revised", "final_revised"), ("LATEST_backup", "v2")]
    files = []
    for label, body_of in names:
        path, title = f"Q3_report_{label}.md", f"Q3 report: {topic} ({label.replace('_', ' ')})"
        lines = [f"# {title}", "", f"Saved {c.fill('{date}')} by {c.fill('{person}')}"]
        for k, body in enumerate(bodies[body_of]):
            lines += ["", f"## Section {k + 1}" if k < 4 else "## Conclusion", *body]
        flags = (f"version:{body_of}",) + (("same-body-as:Q3_report_v2.md",) if label == "LATEST_backup" else ())
        files.append(c.file("md", path=path, title=title, text="\n".join(lines) + "\n", flags=flags))
    for path, title in (("reviewer_comments_v1.md", "Reviewer comments on v1"),
                        ("reviewer_comments_final.md", "Reviewer comments on final"),
                        ("notes_on_changes.md", "Notes on changes")):
        files.append(c.file("md", path=path, title=title, text=c.note(title, sections=2)))
    files.append(c.file("csv", path="reference_data.csv", title="Reference data"))
    return files


def t15_conflicting_reports(c: Composer) -> list[InputFile]:
    """NovaTech Corp: bullish vs bearish reports, and raw data that supports some claims of each."""
    revenue = [round(100 * (1 + 0.05 * q + float(c.rng.normal(0, 0.03))), 1) for q in range(8)]
    rows = [["quarter", "revenue_musd"]] + [[f"{2022 + q // 4}-Q{q % 4 + 1}", f"{v}"] for q, v in enumerate(revenue)]
    share = [[str(y), f"{s:.1f}", f"{100 - s - 30:.1f}", "30.0"] for y, s in
             zip(range(2020, 2025), sorted(c.rng.uniform(18, 26, 5).round(1), reverse=bool(c.rng.integers(2))),
                 strict=True)]
    growth = round((revenue[-1] / revenue[0] - 1) * 100, 1)
    debt = [f"- Bond due {2025 + i}: ${int(c.rng.integers(20, 90))}M at {c.rng.uniform(3, 8):.1f}%" for i in range(4)]
    debt_text = "\n".join(["# NovaTech debt profile", "", *debt, "", "Covenant: net debt / EBITDA below 3.0x."])
    files = [c.file("csv", path="raw_data/revenue_history.csv", title="NovaTech revenue history", text=csv_text(rows)),
             c.file("csv", path="raw_data/market_share.csv", title="NovaTech market share",
                    text=csv_text([["year", "novatech_pct", "rival_pct", "others_pct"], *share])),
             c.file("md", path="raw_data/debt_profile.md", title="NovaTech debt profile", text=debt_text + "\n")]
    rising = float(share[-1][1]) > float(share[0][1])
    claims = {"bullish": (f"Revenue grew {growth + 9:.1f}% over eight quarters.",
                          f"Market share rose to {share[-1][1]}%.", "Debt is modest and mostly long-dated."),
              "bearish": (f"Revenue grew only {growth:.1f}% over eight quarters.",
                          "Refinancing risk: a bond is due in 2025.",
                          f"Market share fell to {share[-1][1]}% last year.")}
    unsupported = {"bullish": ["unsupported:revenue growth", *([] if rising else ["unsupported:share rose"])],
                   "bearish": ["unsupported:share fell"] if rising else []}
    for view, lines in claims.items():
        title = f"NovaTech Corp - {view} analysis"
        body = [f"# {title}", "", f"Analyst: {c.fill('{person}')}, {c.fill('{date}')}", "", "## Key arguments",
                *[f"- {x}" for x in lines], "", "## Conclusion", "Buy." if view == "bullish" else "Sell.", "",
                *c.sentences(3)]
        files.append(c.file("md", path=f"analysis_{view}.md", title=title, text="\n".join(body) + "\n",
                            flags=tuple(unsupported[view])))
    return files
