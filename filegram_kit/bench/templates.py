"""The bench's wording: behaviour descriptions for options, and question templates (offline phrasing).

Options are natural-language descriptions of behaviour, never raw statistics (spec 9.4). Every
behaviour has several wordings (`WORDINGS` of them); an item picks one wording index and uses it for
all its options, so no phrase marks the key and a phrase does not pin a tier across items. Options
never carry tier letters.
"""

from __future__ import annotations

from ..traces.schema import ATTRIBUTES, DIMENSIONS
from ..traces.tasks import Task

WORDINGS = 3

# dimension -> tier -> wordings of what a user of that tier does (third person singular, no subject)
BEHAVIOUR: dict[str, dict[str, tuple[str, ...]]] = {
    "A": {"L": ("reads source files one by one and in full, often going back to re-read them",
                "works through the material in order, opening each file completely and revisiting several",
                "takes in the documents sequentially and thoroughly, rereading the important ones"),
          "M": ("searches for the relevant content first and opens only what the search points to",
                "starts with keyword or file-pattern searches, then reads just the matching parts",
                "locates what it needs by searching, reading targeted sections rather than whole files"),
          "R": ("lists folders widely and skims many files without reading them closely",
                "surveys the workspace by browsing directories and glancing at the first lines of many files",
                "scans broadly across folders, sampling lots of files briefly and rarely returning to any")},
    "B": {"L": ("writes long, comprehensive documents with many sections and details",
                "produces extensive multi-section outputs with deep headings and supporting files",
                "documents everything at length, adding appendices, indexes and detail"),
          "M": ("writes documents of moderate length that cover the essentials",
                "produces mid-sized outputs with a couple of heading levels",
                "writes balanced documents, neither terse nor exhaustive"),
          "R": ("writes short, minimal outputs with only what is needed",
                "produces a single brief note, often as flat bullet points",
                "keeps its outputs terse, a few lines without elaboration")},
    "C": {"L": ("sorts outputs into deeply nested folders, three or more levels deep",
                "builds a multi-level folder hierarchy and files things deep inside it",
                "organises the work into layered subfolders several levels down"),
          "M": ("creates a few folders, one or two levels deep, when the work calls for it",
                "uses a shallow folder structure with a handful of subfolders",
                "groups files into one level of folders where that helps"),
          "R": ("keeps every file flat in the workspace root and rarely creates folders",
                "leaves everything in the top-level folder without making subfolders",
                "works in a single flat directory")},
    "D": {"L": ("refines documents through many small incremental edits",
                "makes lots of small line-level changes over several passes",
                "revises gradually, with frequent minor edits"),
          "M": ("revises documents with a few moderate edits",
                "makes a handful of medium-sized changes to each document",
                "edits in a couple of passes of moderate size"),
          "R": ("rewrites whole files at once instead of editing them",
                "replaces documents wholesale, overwriting rather than patching",
                "makes at most one large change per file, often rewriting it entirely")},
    "E": {"L": ("actively deletes temporary and obsolete files to keep the workspace lean",
                "cleans up as it goes, removing scratch files, duplicates and leftovers",
                "prunes the workspace aggressively, deleting what is no longer needed"),
          "M": ("cleans up now and then, archiving some old material",
                "tidies occasionally, moving old drafts into an archive rather than deleting most of them",
                "removes a little and archives the rest, a moderate clean-up"),
          "R": ("keeps everything and never deletes files",
                "lets files accumulate, leaving drafts and temporary files in place",
                "preserves every file it makes, with no clean-up at all")},
    "F": {"L": ("adds charts, figures and images to its outputs",
                "produces visual material such as chart images and data files alongside the text",
                "illustrates its work with figures and plots that the documents refer to"),
          "M": ("uses tables and structured data alongside its text",
                "presents information in Markdown tables rather than images",
                "relies on tabular summaries inside its documents"),
          "R": ("produces text documents only",
                "writes plain prose and lists, with no tables or images",
                "sticks to text, never adding visual or tabular content")},
}
# the same, as short names for six-part portraits (behavioural fingerprint options)
SHORT: dict[str, dict[str, tuple[str, ...]]] = {
    "A": {"L": ("sequential deep reading", "reads everything in order", "thorough sequential reader"),
          "M": ("targeted search-first", "searches before reading", "keyword-driven lookup"),
          "R": ("breadth-first browsing", "skims widely", "broad folder scanning")},
    "B": {"L": ("comprehensive and detailed", "long detailed outputs", "extensive documents"),
          "M": ("balanced", "moderate-length outputs", "mid-sized documents"),
          "R": ("minimal and concise", "short terse outputs", "brief notes")},
    "C": {"L": ("deeply nested", "multi-level folders", "deep hierarchy"),
          "M": ("adaptive, one or two levels", "a few shallow folders", "light grouping"),
          "R": ("flat", "everything in the root", "no subfolders")},
    "D": {"L": ("incremental small edits", "many small revisions", "gradual line-level changes"),
          "M": ("balanced refinement", "a few moderate edits", "medium-sized revisions"),
          "R": ("bulk rewrite", "whole-file rewrites", "overwrites instead of editing")},
    "E": {"L": ("selective, active cleanup", "deletes leftovers", "aggressive pruning"),
          "M": ("pragmatic cleanup", "occasional archiving", "moderate tidying"),
          "R": ("preservative, keeps everything", "never deletes", "lets files pile up")},
    "F": {"L": ("visual-heavy", "charts and images", "figure-rich"),
          "M": ("tables", "tabular summaries", "structured tables, no images"),
          "R": ("text-only", "plain prose", "no visuals")},
}
PARTS = {"A": "reading", "B": "writing", "C": "organising", "D": "revising", "E": "curating", "F": "modality"}
# an aspect of behaviour as a verb phrase (questions: "how the user ...") and as a noun phrase (options)
ASPECT = {"A": "reads and finds information", "B": "writes its outputs", "C": "organises files into folders",
          "D": "revises its documents", "E": "cleans up and keeps old files", "F": "uses visual or structured content"}
ASPECT_NOUN: dict[str, tuple[str, ...]] = {
    "A": ("Reading and finding information", "How the material is looked up and read", "Information gathering"),
    "B": ("Writing outputs", "How much and how elaborately the outputs are written", "Document production"),
    "C": ("Organising files into folders", "The folder structure", "File organisation"),
    "D": ("Revising documents", "How existing files are edited", "Iteration on drafts"),
    "E": ("Cleaning up old and temporary files", "What happens to obsolete files", "Workspace curation"),
    "F": ("Using visual or structured content", "The mix of charts, tables and text", "Output modality"),
}
DIRECTION: tuple[str, ...] = ("{a} -> {b}", "from {a} to {b}", "{a}, then {b} in that session")
CHANGE: tuple[str, ...] = ("Normally the user {before}; in that session the user {after}.",
                           "In that session the user {after}, whereas normally the user {before}.",
                           "Unlike usual (the user {before}), in that session the user {after}.")
CONTRAST: tuple[str, ...] = ("One of them {a}, while the other {b}.", "One user {a}; the other {b}.",
                             "Where one {a}, the other {b}.")
# attribute -> tier -> wordings (the first is paper Table 8's value)
ATTRIBUTE_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "thoroughness": {"L": ("Exhaustive", "Covers nearly all of the material", "Leaves little unread"),
                     "M": ("Selective", "Covers the relevant part of the material", "Reads what matters"),
                     "R": ("Minimal", "Touches only a little of the material", "Covers the bare minimum")},
    "tone": {"L": ("Formal, academic", "Formal register", "Academic, impersonal style"),
             "M": ("Professional", "Plain business register", "Neutral professional style"),
             "R": ("Casual", "Informal, chatty register", "Relaxed, conversational style")},
    "output_structure": {"L": ("Highly structured", "Many heading levels and sections", "Rigidly organised layout"),
                         "M": ("Moderate", "Some headings and sections", "Lightly structured"),
                         "R": ("Free-form", "Flat bullets or running prose", "Little formal structure")},
    "documentation": {"L": ("Extensive", "Writes indexes, READMEs and notes", "Documents thoroughly"),
                      "M": ("Moderate", "Some supporting notes", "Occasional documentation"),
                      "R": ("Minimal", "Hardly documents anything", "No supporting documents")},
    "naming": {"L": ("Systematic", "Long, dated, descriptive names", "A consistent naming scheme"),
               "M": ("Semi-structured", "Short multi-word names", "Somewhat consistent names"),
               "R": ("Ad-hoc", "Short, improvised names", "Whatever name comes to mind")},
    "version_strategy": {"L": ("Explicit v1/v2", "Keeps numbered versions", "Versioned copies such as v1 and v2"),
                         "M": ("Backup copies", "Makes a backup copy before changing a file", "Safety copies"),
                         "R": ("In-place overwrite", "Changes files in place, no copies",
                               "Overwrites without keeping versions")},
    "error_handling": {"L": ("Cautious, backup", "Backs up before risky changes", "Careful and defensive"),
                       "M": ("Selective backup", "Backs up only sometimes", "Occasionally protective"),
                       "R": ("Direct, no backup", "Changes files directly without safeguards",
                             "Goes ahead without copies")},
    "revision_depth": {"L": ("Multi-pass", "Revises in many passes", "Repeated rounds of revision"),
                       "M": ("Two-pass", "A draft plus one revision", "A couple of passes"),
                       "R": ("Single-pass", "Done in one go", "No revision passes")},
    "working_style": {"L": ("Phased, methodical", "Works in distinct phases, one file at a time", "Step by step"),
                      "M": ("Pragmatic", "Mixes reading and writing as needed", "A practical, steady pace"),
                      "R": ("Burst-mode", "Works in rapid bursts of parallel actions", "Batches many actions at once")},
    "cleanup_policy": {"L": ("Aggressive cleanup", "Deletes leftovers promptly", "Prunes actively"),
                       "M": ("Periodic archival", "Archives old material from time to time", "Moves old files aside"),
                       "R": ("Never delete", "Keeps every file", "Lets files accumulate")},
    "output_modality": {"L": ("Multi-format", "Documents plus images and data files", "Several file formats"),
                        "M": ("Dual-format", "Text plus one other format", "Two formats"),
                        "R": ("Single-format", "One format only", "Just text documents")},
}


def portrait(tiers: dict[str, str], v: int) -> str:
    """A behavioural portrait over the given dimensions: 'reading: skims widely; writing: ...'."""
    return "; ".join(f"{PARTS[d]}: {SHORT[d][t][v]}" for d, t in sorted(tiers.items()))


def prediction(tiers: dict[str, str], v: int) -> str:
    """What a user with these tiers would do, as one sentence over the given dimensions."""
    clauses = [BEHAVIOUR[d][t][v] for d, t in sorted(tiers.items())]
    if len(clauses) == 1:
        return f"The user {clauses[0]}."
    return "The user " + ", ".join(clauses[:-1]) + ", and " + clauses[-1] + "."


def contrast(dim: str, tier_a: str, tier_b: str, v: int) -> str:
    """How two users differ on one dimension (order-free wording: 'one ..., the other ...')."""
    return CONTRAST[v].format(a=BEHAVIOUR[dim][tier_a][v], b=BEHAVIOUR[dim][tier_b][v])


def shift_text(dim: str, before: str, after: str, v: int) -> str:
    """A before -> after change on one dimension, in words."""
    return CHANGE[v].format(before=BEHAVIOUR[dim][before][v], after=BEHAVIOUR[dim][after][v])


def direction_text(dim: str, before: str, after: str, v: int) -> str:
    return DIRECTION[v].format(a=SHORT[dim][before][v], b=SHORT[dim][after][v])


def attribute_option(name: str, tier: str, v: int) -> str:
    return ATTRIBUTE_WORDS[name][tier][v]


def attribute_value(name: str, tier: str) -> str:
    """An attribute's value as paper Table 8 names it, e.g. 'Search-first' for reading_strategy M."""
    return ATTRIBUTES[name].tiers[tier]


def attribute_label(name: str) -> str:
    return name.replace("_", " ")


def task_ref(task: Task) -> str:
    """A task as questions name it: 'T-05 (organize: Messy folder cleanup and reorganization)'."""
    return f"{task.id} ({task.type}: {task.description})"


def option_label(position: int) -> str:
    """How an input session is named to memories and in options that point at sessions (1-based)."""
    return f"Session {position}"


QUESTIONS = {
    "dimension_tier": "Across these work sessions of one user, which description best fits how the user {aspect}?",
    "attribute": "Which best describes this user's {label} ({description})?",
    "language": "In which language does this user write their documents?",
    "fingerprint": "The file-system trace below comes from one work session on {task} by an unnamed user. Which "
                   "behavioural portrait fits what this session shows?",
    "profile": "Describe this user's {label} ({description}) as observed in their file-system behaviour.",
    "inference": "This user's sessions on every task except {task} are available. How would this user most likely "
                 "work on that held-out task?",
    "disentangle": "Two users worked on {task} at the same time; their sessions are Session 1 and Session 2. "
                   "Which of these is a difference between their ways of working?",
    "differing_aspect": "Two users worked on {task} at the same time; their sessions are Session 1 and Session 2. "
                        "In which of these aspects of their behaviour do they differ?",
    "impostor": "All but one of these {n} work sessions were done by the same user; one was done by someone else. "
                "Which session was not done by this user?",
    "perturbation": "These {n} work sessions all come from one user, but in one of them the user behaved unlike "
                    "their usual self. Which session deviates?",
    "shifted_dimension": "Of these {n} sessions, the one on {task} shows a shift in one aspect of the user's "
                         "behaviour. Which aspect changed?",
    "shift_direction": "In the session on {task}, the way this user {aspect} changed compared with their other "
                       "sessions. In which direction did it change?",
    "change_description": "Compared with their other sessions, how did this user's behaviour change in the session "
                          "on {task}?",
}
ATTRIBUTE_HINTS = {
    "reading_strategy": "how they find and read information", "thoroughness": "how much of the material they cover",
    "tone": "the register of their writing", "output_detail": "how much detail their outputs carry",
    "output_structure": "how their documents are laid out", "documentation": "how much they document their work",
    "directory_style": "how they arrange folders", "naming": "how they name files",
    "version_strategy": "how they keep versions of files", "edit_strategy": "how they change existing files",
    "error_handling": "how carefully they protect files before changing them",
    "revision_depth": "how many passes they make over a document", "working_style": "the rhythm of their work",
    "cleanup_policy": "what they do with old and temporary files", "cross_modal": "whether they use visual content",
    "output_modality": "how many formats their outputs take",
}


def attribute_hint(name: str) -> str:
    return ATTRIBUTE_HINTS.get(name, ATTRIBUTES[name].description or name.replace("_", " "))


def dimension_label(dim: str) -> str:
    return DIMENSIONS[dim].name
