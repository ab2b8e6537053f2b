"""The ground truth in other words: the `oracle_paraphrased` controls' memories, and the column's reading ceiling.

`oracle_context` writes the truth in the options' own wording, so a reader that only matches words scores
well on it and says nothing about whether it reads meaning. This module writes the same facts in two more
wording sets, each sharing no content word with any question or option template (templates.py) beyond names
and labels (task ids, "Session k", language names), tested item by item:

- `WORDING_A` (`oracle_paraphrased`): the set the reader is developed and tuned on;
- `WORDING_B` (`oracle_paraphrased_b`): written apart from A (few words in common with it) and never tuned
  on. A reader that scores A well but not B has learnt a wording, not meaning.

A column whose reader cannot reach well above chance from this text is reader-limited: no ordering of methods
on it means anything, whatever the memories hold.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..traces.schema import DIMENSION_CODES
from .ground_truth import CorpusFacts
from .schema import Item


@dataclass(frozen=True)
class Wording:
    """One way of writing the truth: behaviours and attribute values (third person, no subject), and frames."""

    behaviour: dict[str, dict[str, str]]  # dimension -> tier -> what a person of that tier does
    aspect: dict[str, str]  # dimension -> what the aspect is about, as a noun phrase
    attribute: dict[str, dict[str, str]]  # attribute -> tier -> its value
    odd: dict[str, str]  # anomaly kind -> what the odd session is
    in_character: str  # what every other session is
    person: str  # "- This person {behaviour}."
    session: str  # a Behavioural Fingerprint session's heading
    about: str  # a profile's heading
    habit: str  # "- Habit: {value}."
    language: str  # "- ... {language}."
    pair: tuple[str, str]  # the two users of a Trace Disentanglement stream, headings
    shift: str  # "{task}", "{aspect}", "{before}", "{after}"


WORDING_A = Wording(
    behaviour={
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
    },
    aspect={"A": "consulting references", "B": "the volume it composes", "C": "its container tree",
            "D": "how it polishes deliverables", "E": "what becomes of superseded items",
            "F": "graphs, grids or paragraphs in its results"},
    attribute={
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
        "revision_depth": {"L": "reworks a deliverable over numerous cycles",
                           "M": "one rework after the initial attempt", "R": "finished in one attempt, no rework"},
        "working_style": {"L": "proceeds in clear stages, one item after another",
                          "M": "proceeds in a sensible, even manner",
                          "R": "proceeds in quick spurts of concurrent activity"},
        "cleanup_policy": {"L": "erases scrap straight away", "M": "stows superseded items away at intervals",
                           "R": "erases nothing"},
        "output_modality": {"L": "results in assorted kinds: paragraphs, pictures, spreadsheets",
                            "M": "results in exactly a pair of kinds", "R": "results in a sole kind"},
    },
    odd={"impostor": "belongs to a different individual", "perturbation": "shows this person acting out of character"},
    in_character="is in character for this person",
    person="- This person {behaviour}.", session="Here:", about="About this person:", habit="- Habit: {value}.",
    language="- All this person composes is in {language}.",
    pair=("Session 1, one person:", "Session 2, the second person:"),
    shift="During {task}, {aspect} departed from this person's norm: ordinarily this person {before}; there this "
          "person {after}.",
)

WORDING_B = Wording(
    behaviour={
        "A": {"L": "ploughs through each input from its outset to its close, in turn, poring over prior ones anew",
              "M": "hunts for exact terms with grep and similar tools, then inspects just what the hunt turns up",
              "R": "flits around the drive, glimpsing the beginnings of dozens of inputs without dwelling on any"},
        "B": {"L": "turns out hefty, sprawling compositions crammed with subheads and minutiae",
              "M": "turns out compositions of ordinary heft capturing the main ideas",
              "R": "turns out scant, stripped-down scribbles and nothing beyond"},
        "C": {"L": "stacks its products within a towering pyramid of compartments, compartments within compartments",
              "M": "establishes a few compartments, no deeper than the second storey, when it pays",
              "R": "dumps its products side by side in one undivided mass, no compartments"},
        "D": {"L": "fine-tunes its products via countless nudges",
              "M": "amends its products through a few fair-scale amendments",
              "R": "throws out each product and recomposes it from nothing"},
        "E": {"L": "wipes out throwaway and stale stuff at once; its space remains trim",
              "M": "intermittently shelves stale stuff and wipes out a bit of it",
              "R": "holds on to each byte it ever made, wiping out nothing; stuff just mounts up"},
        "F": {"L": "decorates its products with graphics, drawings and snapshots",
              "M": "lays out its facts in matrices of cells, not drawings",
              "R": "restricts itself to verbal narration, no drawings or matrices"},
    },
    aspect={"A": "its intake of inputs", "B": "the heft it turns out", "C": "its compartments",
            "D": "how it amends its products", "E": "the fate of stale stuff",
            "F": "drawings, matrices or narration in its products"},
    attribute={
        "thoroughness": {"L": "takes in virtually all inputs there are", "M": "takes in just the germane inputs",
                         "R": "takes in scarcely any inputs"},
        "tone": {"L": "erudite and ceremonious", "M": "crisp and workmanlike", "R": "breezy and colloquial"},
        "output_structure": {"L": "carved into labelled subparts", "M": "somewhat carved, sparse labels",
                             "R": "unbroken continuous narration"},
        "documentation": {"L": "ships manuals and how-to leaflets with its products", "M": "the odd leaflet",
                          "R": "no leaflets whatsoever"},
        "naming": {"L": "labels each product per a rigid rule carrying the date", "M": "labels products per a lax rule",
                   "R": "labels products off the cuff"},
        "version_strategy": {"L": "saves successive incarnations of each product, each tagged with its ordinal",
                             "M": "tucks away a reserve replica prior to amending a product",
                             "R": "amends products right there, no reserve replica"},
        "error_handling": {"L": "shields products prior to any perilous amendment",
                           "M": "shields products once in a while", "R": "charges on with no shield"},
        "revision_depth": {"L": "recasts a product over and over, countless times",
                           "M": "recasts a product once after its maiden try",
                           "R": "settled at the maiden try, with no recast"},
        "working_style": {"L": "advances in orderly segments, product after product",
                          "M": "advances at a level-headed, even tempo",
                          "R": "advances in frantic flurries of simultaneous operations"},
        "cleanup_policy": {"L": "wipes out throwaway stuff at once", "M": "shelves stale stuff intermittently",
                           "R": "wipes out nothing"},
        "output_modality": {"L": "products in a medley of media: narration, drawings, spreadsheets",
                            "M": "products in precisely a duo of media", "R": "products in a lone medium"},
    },
    odd={"impostor": "is a stranger's, not our subject's", "perturbation": "finds our subject acting out of step with "
                                                                          "their habit"},
    in_character="fits our subject's habit",
    person="- Our subject {behaviour}.", session="In this stretch:", about="Our subject:", habit="- Also: {value}.",
    language="- Our subject authors in {language}.",
    pair=("Session 1, a certain subject:", "Session 2, a further subject:"),
    shift="In {task}, {aspect} broke from our subject's habit: as a rule our subject {before}; in that instance our "
          "subject {after}.",
)
WORDINGS = {"oracle_paraphrased": WORDING_A, "oracle_paraphrased_b": WORDING_B}


def _person(w: Wording, tiers: dict[str, str], dims: Iterable[str] = DIMENSION_CODES) -> list[str]:
    return [w.person.format(behaviour=w.behaviour[d][tiers[d]]) for d in dims]


def _profile(w: Wording, item: Item, facts: CorpusFacts) -> list[str]:
    pid = item.profile_id
    persona = facts.personas[pid]
    lines = [w.about, *_person(w, facts.tiers(pid))]
    asked = (item.metadata or {}).get("attribute")
    if asked in w.attribute and asked in persona.attributes:
        lines.append(w.habit.format(value=w.attribute[asked][persona.attributes[asked].value]))
    lines.append(w.language.format(language=persona.language))
    return lines


def paraphrased_context(item: Item, facts: CorpusFacts, wording: Wording = WORDING_A) -> str:
    """The item's ground truth (what `controls.truth_context` states) in another wording set."""
    w, kind, meta = wording, item.sub_class, item.metadata or {}
    sub_track = meta.get("source_sub_track", item.sub_track)
    if "future" in meta:  # Visual Grounding's reference is a session's own actions: no second wording exists
        return f"Next: {item.correct}"
    if sub_track == "behavioral_fingerprint":
        tid = item.input_trajectories[0]
        return "\n".join([w.session, *_person(w, facts.expressed[tid].tiers, facts.active(facts.task_of[tid]))])
    if sub_track == "trace_disentanglement":
        a, b = meta["interleave"]
        dims = facts.active(meta["task_id"])
        return "\n".join([w.pair[0], *_person(w, facts.effective(a), dims),
                          w.pair[1], *_person(w, facts.effective(b), dims)])
    if sub_track == "anomaly_detection":
        labels, odd = meta["labels"], meta["answer_trajectory"]
        return "\n".join(f"- {labels[t]} {w.odd[kind] if t == odd else w.in_character}."
                         for t in item.input_trajectories)
    if sub_track == "shift_analysis":
        tid = meta["answer_trajectory"]
        shift = facts.shifts[tid]
        d = shift.dimension
        return w.shift.format(task=facts.task_of[tid], aspect=w.aspect[d], before=w.behaviour[d][shift.from_tier],
                              after=w.behaviour[d][shift.to_tier])
    return "\n".join(_profile(w, item, facts))


def paraphrased_context_b(item: Item, facts: CorpusFacts) -> str:
    """The item's ground truth in the second, untuned wording set (`oracle_paraphrased_b`)."""
    return paraphrased_context(item, facts, WORDING_B)


def shared_words(item: Item, text: str) -> set[str]:
    """Content words `text` shares with the item's question or options, names and labels aside (numbers, task and
    session labels, language names): what a paraphrase must not contain."""
    from ..llm.algorithms.text import content_terms

    asked = set(content_terms(" ".join([item.question, *item.choices])))
    names = {"session", "english", "chinese", *(w for w in asked if w[:1].isdigit())}
    return (set(content_terms(text)) & asked) - names
