"""T-29's workspace: Singapore company business profiles (one PDF each) and industry code spreadsheets.

Each profile carries what an ACRA business profile lists (UEN, registration date, status, primary
and secondary activity codes, address, capital, officers) for a generated company, so that the
task's classification and indexing have real fields to work from. Codes and titles are a small
synthetic extract in the style of SSIC, not the official table.
"""

from __future__ import annotations

from .content import Composer, InputFile, slug

INDUSTRIES = (  # (industry, code, activity, words that end a company name)
    ("Construction", "41001", "General contractors (building construction)", ("Builders", "Construction")),
    ("Construction", "43301", "Renovation contractors", ("Renovation", "Interior Works")),
    ("Information technology", "62011", "Development of software and applications", ("Software", "Systems", "Digital")),
    ("Information technology", "62021", "IT consultancy", ("Tech Consulting", "IT Services")),
    ("Wholesale", "46900", "Wholesale trade of a variety of goods", ("Trading", "Supply", "Distribution")),
    ("Retail", "47711", "Retail sale of clothing", ("Boutique", "Retail", "Fashion")),
    ("Manufacturing", "25929", "Manufacture of fabricated metal products", ("Precision", "Fabrication", "Industries")),
    ("Professional services", "70201", "Management consultancy services", ("Advisory", "Consulting", "Partners")),
    ("Professional services", "69201", "Accounting and auditing services", ("Accounting", "Assurance")),
    ("Food and beverage", "56111", "Restaurants", ("Kitchen", "Eatery", "Food Concepts")),
    ("Logistics", "52291", "Freight forwarding", ("Logistics", "Freight", "Shipping")),
)
PREFIXES = ("Keystone", "Meridian", "Orchid", "Lion City", "Harbourfront", "Evergreen", "Sunrise", "Bluewave", "Marina",
            "Pinnacle", "Jade", "Red Dot", "Tanjong", "Kallang", "Banyan", "Crescent", "Horizon", "Summit",
            "Golden Sands", "Straits", "Merlion Bay", "Bukit", "Seletar", "Tembusu", "Clementi", "Serangoon")
SURNAMES = ("Tan", "Lim", "Lee", "Ng", "Wong", "Goh", "Chua", "Teo", "Koh", "Pillai", "Rahman", "Singh")
GIVEN = ("Wei Ming", "Siew Ling", "Boon Kiat", "Hui Min", "Jun Hao", "Mei Xin", "Kumar", "Aisyah", "Farid", "Jia Hui")


def _officer(c: Composer) -> str:
    return f"{c.pick(SURNAMES)} {c.pick(GIVEN)}"


def _profile(c: Composer, name: str, industry: tuple) -> tuple[str, str, str]:
    """(title, text, uen) of one business profile."""
    sector, code, activity, _ = industry
    year = int(c.rng.integers(1995, 2024))
    uen = f"{year}{int(c.rng.integers(10000, 99999))}{c.pick('CDEGHKMNRWZ')}"
    second = c.pick(INDUSTRIES)
    status = "Struck Off" if c.rng.random() < 0.1 else "Live Company"
    title = f"{name} Pte. Ltd. - Business Profile"
    lines = [title, "", f"Business profile (company) retrieved {c.fill('{date}')}", "", "## Company details",
             f"UEN: {uen}", f"Entity name: {name.upper()} PTE. LTD.",
             "Entity type: Local company - private company limited by shares",
             f"Registration date: {int(c.rng.integers(1, 29)):02d}/{int(c.rng.integers(1, 13)):02d}/{year}",
             f"Status: {status}", f"Industry: {sector}", f"Primary activity: {code} - {activity}",
             f"Secondary activity: {second[1]} - {second[2]}",
             f"Registered address: {c.fill('{place}')} Singapore {int(c.rng.integers(10000, 829999)):06d}",
             f"Paid-up capital: S${int(c.rng.integers(1, 500)) * 1000:,} (ordinary shares)", "", "## Officers"]
    lines += [f"- Director: {_officer(c)}, appointed {c.fill('{date}')}" for _ in range(int(c.rng.integers(1, 4)))]
    lines += [f"- Secretary: {_officer(c)}", "", "## Shareholders",
              f"- {_officer(c)}: {int(c.rng.integers(1, 100)) * 1000:,} shares"]
    return title, "\n".join(lines) + "\n", uen


def t29_registry(c: Composer) -> list[InputFile]:
    """28 business profiles under inconsistent file names, plus the two code reference spreadsheets."""
    files, names = [], set()
    while len(files) < 28:
        industry = c.pick(INDUSTRIES)
        name = f"{c.pick(PREFIXES)} {c.pick(industry[3])}"
        if name in names:
            continue
        names.add(name)
        title, text, uen = _profile(c, name, industry)
        stem = c.pick((uen, f"bizfile_{slug(name)}", f"{name} Pte Ltd", f"ACRA_{slug(name).upper()}",
                       f"profile ({len(files) + 1})"))
        files.append(c.file("pdf", path=f"{stem}.pdf", title=title, text=text, flags=(f"industry:{industry[0]}",)))
    codes = [["code", "title", "industry"]] + [[code, act, sector] for sector, code, act, _ in INDUSTRIES]
    sectors = sorted({i[0] for i in INDUSTRIES})
    groups = [["industry", "codes"]] + [[s, " ".join(i[1] for i in INDUSTRIES if i[0] == s)] for s in sectors]
    notes = [["note"], ["Extract for internal filing only."], [c.fill("Updated {date}.")]]
    files.append(c.file("xlsx", path="SSIC_code_reference.xlsx", title="SSIC code reference (extract)",
                        text=c.sheet("SSIC code reference (extract)", {"Codes": codes})))
    files.append(c.file("xlsx", path="industry_groups.xlsx", title="Industry groups",
                        text=c.sheet("Industry groups", {"Groups": groups, "Notes": notes})))
    return files
