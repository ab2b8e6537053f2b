"""The ground truth in other words: the `oracle_paraphrased` control's memory, and the column's reading ceiling.

`oracle_context` writes the truth in the options' own wording, so a reader that only matches words scores
well on it and says nothing about whether it reads meaning. This module writes the same facts in a second,
independent wording set that shares no content word with any question or option template (templates.py)
beyond names and labels (task ids, "Session k", language names), tested item by item. A column whose
reader cannot reach well above chance from this text is reader-limited: no ordering of methods on it means
anything, whatever the memories hold.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..traces.schema import DIMENSION_CODES
from .ground_truth import CorpusFacts
from .schema import Item

# dimension -> tier -> what a person of that tier does (third person, no subject)
BEHAVIOUR: dict[str, dict[str, str]] = {
    "A": {"L": "studies each paper from beginning to end, one after another, and consults earlier papers again",
          "M": "queries for particular phrases up front, then examines just the hits",
          "R": "peeks at a great quantity of items all over the tree, superficially, seldom twice"},
    "B": {"L": "composes lengthy, elaborate deliverables abounding in subdivisions and particulars",
          "M": "composes deliverables of average extent that hold the key facts",
          "R": "composes tiny, spare jottings with nothing extra"},
    "C": {"L": "stores results in a tall tree of containers within containers within containers",
          "M": "sets up a modest count of containers, no more than a pair of tiers down, when useful",
          "R": "drops all results loose in one heap, with no containers"},
    "D": {"L": "polishes its deliverables through numerous tiny tweaks",
          "M": "adjusts its deliverables with a modest count of middling tweaks",
          "R": "redoes each deliverable wholly, from zero"},
    "E": {"L": "eagerly erases scrap and outdated items so the area stays slim",
          "M": "at intervals stows superseded items away and erases a few",
          "R": "retains all, erasing nothing; items just amass"},
    "F": {"L": "enriches its deliverables with graphs, diagrams and pictures",
          "M": "puts facts in grids of rows and columns, not pictures",
          "R": "confines itself to sentences and paragraphs, no graphs or grids"},
}
# dimension -> what the aspect is about, as a noun phrase
ASPECT: dict[str, str] = {"A": "consulting references", "B": "the volume it composes", "C": "its container tree",
                          "D": "how it polishes deliverables", "E": "what becomes of superseded items",
                          "F": "graphs, grids or paragraphs in its results"}
# attribute -> tier -> its value
ATTRIBUTE: dict[str, dict[str, str]] = {
    "thoroughness": {"L": "gets through practically all pages there are", "M": "gets through only pertinent pages",
                     "R": "gets through barely any pages"},
    "tone": {"L": "scholarly and stiff", "M": "businesslike", "R": "easygoing and friendly"},
    "output_structure": {"L": "tightly partitioned into titled subdivisions", "M": "partly partitioned, few titles",
                         "R": "loose, unpartitioned paragraphs"},
    "documentation": {"L": "accompanies results with guides and explanatory pamphlets",
                      "M": "an explanatory pamphlet here and there", "R": "no explanatory pamphlets at all"},
    "naming": {"L": "titles each item by a strict convention including the day",
               "M": "titles items by a loose convention", "R": "titles items spontaneously"},
    "version_strategy": {"L": "retains enumerated editions of each item",
                         "M": "stashes a spare before altering an item",
                         "R": "alters items on the spot, nothing spare"},
    "error_handling": {"L": "guards items before any hazardous alteration", "M": "guards items only on occasion",
                       "R": "proceeds with no guard"},
    "revision_depth": {"L": "reworks a deliverable over numerous cycles", "M": "one rework after the initial attempt",
                       "R": "finished in one attempt, no rework"},
    "working_style": {"L": "proceeds in clear stages, one item after another",
                      "M": "proceeds in a sensible, even manner",
                      "R": "proceeds in quick spurts of concurrent activity"},
    "cleanup_policy": {"L": "erases scrap straight away", "M": "stows superseded items away at intervals",
                       "R": "erases nothing"},
    "output_modality": {"L": "results in assorted kinds: paragraphs, pictures, spreadsheets",
                        "M": "results in exactly a pair of kinds", "R": "results in a sole kind"},
}
ODD = {"impostor": "belongs to a different individual",
       "perturbation": "shows this person acting out of character"}
IN_CHARACTER = "is in character for this person"


def _person(tiers: dict[str, str], dims: Iterable[str] = DIMENSION_CODES) -> list[str]:
    return [f"- This person {BEHAVIOUR[d][tiers[d]]}." for d in dims]


def _profile(item: Item, facts: CorpusFacts) -> list[str]:
    pid = item.profile_id
    persona = facts.personas[pid]
    lines = ["About this person:", *_person(facts.tiers(pid))]
    asked = (item.metadata or {}).get("attribute")
    if asked in ATTRIBUTE and asked in persona.attributes:
        lines.append(f"- Habit: {ATTRIBUTE[asked][persona.attributes[asked].value]}.")
    lines.append(f"- All this person composes is in {persona.language}.")
    return lines


def paraphrased_context(item: Item, facts: CorpusFacts) -> str:
    """The item's ground truth (what `controls.truth_context` states) in the second wording set."""
    kind, meta = item.sub_class, item.metadata or {}
    sub_track = meta.get("source_sub_track", item.sub_track)
    if "future" in meta:  # Visual Grounding's reference is a session's own actions: no second wording exists
        return f"Next: {item.correct}"
    if sub_track == "behavioral_fingerprint":
        tid = item.input_trajectories[0]
        return "\n".join(["Here:", *_person(facts.expressed[tid].tiers, facts.active(facts.task_of[tid]))])
    if sub_track == "trace_disentanglement":
        a, b = meta["interleave"]
        dims = facts.active(meta["task_id"])
        return "\n".join(["Session 1, one person:", *_person(facts.effective(a), dims),
                          "Session 2, the second person:", *_person(facts.effective(b), dims)])
    if sub_track == "anomaly_detection":
        labels, odd = meta["labels"], meta["answer_trajectory"]
        return "\n".join(f"- {labels[t]} {ODD[kind] if t == odd else IN_CHARACTER}." for t in item.input_trajectories)
    if sub_track == "shift_analysis":
        tid = meta["answer_trajectory"]
        shift = facts.shifts[tid]
        d = shift.dimension
        return (f"During {facts.task_of[tid]}, {ASPECT[d]} departed from this person's norm: ordinarily this person "
                f"{BEHAVIOUR[d][shift.from_tier]}; there this person {BEHAVIOUR[d][shift.to_tier]}.")
    return "\n".join(_profile(item, facts))


def shared_words(item: Item, text: str) -> set[str]:
    """Content words `text` shares with the item's question or options, names and labels aside (numbers, task and
    session labels, language names): what a paraphrase must not contain."""
    from ..llm.algorithms.text import content_terms

    asked = set(content_terms(" ".join([item.question, *item.choices])))
    names = {"session", "english", "chinese", *(w for w in asked if w[:1].isdigit())}
    return (set(content_terms(text)) & asked) - names
