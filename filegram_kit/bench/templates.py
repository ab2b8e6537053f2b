"""The bench's wording: behaviour descriptions for options, and question templates (offline phrasing).

Options are natural-language descriptions of behaviour, never raw statistics (spec 9.4). Each
tier description ends with the short tier name in brackets, the words a memory that reads tiers
would use; the rest says what the behaviour looks like in a file system.
"""

from __future__ import annotations

from ..schema import ATTRIBUTES, DIMENSIONS
from ..tasks import Task

# dimension -> tier -> what a user of that tier does (third person, present tense, no subject)
BEHAVIOUR: dict[str, dict[str, str]] = {
    "A": {"L": "reads source files one by one and in full, often going back to re-read them (sequential deep reading)",
          "M": "searches for the relevant content first and opens only what the search points to "
               "(targeted search-first)",
          "R": "lists folders widely and skims many files without reading them closely (breadth-first browsing)"},
    "B": {"L": "writes long, comprehensive documents with many sections and details (comprehensive & detailed)",
          "M": "writes documents of moderate length that cover the essentials (balanced)",
          "R": "writes short, minimal outputs with only what is needed (minimal & concise)"},
    "C": {"L": "sorts outputs into deeply nested folders, three or more levels deep (deeply nested)",
          "M": "creates a few folders, one or two levels deep, when the work calls for it (adaptive)",
          "R": "keeps every file flat in the workspace root and rarely creates folders (flat)"},
    "D": {"L": "refines documents through many small incremental edits (incremental small edits)",
          "M": "revises documents with a few moderate edits (balanced refinement)",
          "R": "rewrites whole files at once instead of editing them (bulk rewrite)"},
    "E": {"L": "actively deletes temporary and obsolete files to keep the workspace lean (selective cleanup)",
          "M": "cleans up now and then, archiving some old material (pragmatic cleanup)",
          "R": "keeps everything and never deletes files (preservative, accumulative)"},
    "F": {"L": "adds charts, figures and images to its outputs (visual-heavy)",
          "M": "uses tables and structured data files alongside text (balanced, tables)",
          "R": "produces text documents only (text-only)"},
}
# the same, shortened for six-part portraits (behavioural fingerprint options)
SHORT: dict[str, dict[str, str]] = {code: {t: text.rsplit("(", 1)[1].rstrip(")") for t, text in tiers.items()}
                                    for code, tiers in BEHAVIOUR.items()}
LANGUAGES = ("English", "Chinese", "Japanese", "Spanish")


def portrait(tiers: dict[str, str]) -> str:
    """A six-part behavioural portrait: 'reading: targeted search-first; writing: ...'."""
    parts = {"A": "reading", "B": "writing", "C": "organising", "D": "revising", "E": "curating", "F": "modality"}
    return "; ".join(f"{parts[d]}: {SHORT[d][tiers[d]]}" for d in DIMENSIONS if d in tiers)


def prediction(tiers: dict[str, str], dims: tuple[str, ...]) -> str:
    """What a user with these tiers would do on a task activating `dims`, as one sentence."""
    clauses = [BEHAVIOUR[d][tiers[d]] for d in dims]
    if len(clauses) == 1:
        return f"The user {clauses[0]}."
    return "The user " + ", ".join(clauses[:-1]) + ", and " + clauses[-1] + "."


def contrast(dim: str, tier_a: str, tier_b: str) -> str:
    """How two users differ on one dimension (order-free wording: 'one ..., the other ...')."""
    return f"One of them {BEHAVIOUR[dim][tier_a]}, while the other {BEHAVIOUR[dim][tier_b]}."


def shift_text(dim: str, before: str, after: str) -> str:
    """A before -> after change on one dimension, in words."""
    return (f"In that session the user {BEHAVIOUR[dim][after]}, where they usually "
            f"{BEHAVIOUR[dim][before].split(' (', 1)[0]}.")


def direction_text(dim: str, before: str, after: str) -> str:
    labels = DIMENSIONS[dim].labels
    return f"{labels[before]} ({before}) -> {labels[after]} ({after})"


def attribute_value(name: str, tier: str) -> str:
    """An attribute's value in words, e.g. 'Search-first' for reading_strategy M (paper Table 8)."""
    return ATTRIBUTES[name].tiers[tier]


def attribute_label(name: str) -> str:
    return name.replace("_", " ")


def task_ref(task: Task) -> str:
    """A task as questions name it: 'T-05 (organize: Messy folder cleanup and reorganization)'."""
    return f"{task.id} ({task.type}: {task.description})"


def session_option(task: Task) -> str:
    return f"The session on {task_ref(task)}"


QUESTIONS = {
    "dimension_tier": "Across this user's work sessions, which description best fits how the user {aspect}?",
    "attribute": "Which best describes this user's {label} ({description})?",
    "language": "In which language does this user write their documents?",
    "fingerprint": "The file-system trace below comes from one work session on {task} by an unnamed user. Which "
                   "behavioural portrait fits that user best?",
    "profile": "Describe this user's {label} ({description}) as observed in their file-system behaviour.",
    "inference": "This user's sessions on every task except {task} are available. How would this user most likely "
                 "work on that held-out task?",
    "disentangle": "Two users worked on {task} and their file actions are interleaved in one stream. What is the "
                   "primary behavioural difference between them?",
    "differing_aspect": "Two users worked on {task} and their file actions are interleaved in one stream. In which "
                        "aspect of their behaviour do they differ?",
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
ASPECT = {"A": "reads and finds information", "B": "writes its outputs", "C": "organises files into folders",
          "D": "revises its documents", "E": "cleans up and keeps old files", "F": "uses visual or structured content"}
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
