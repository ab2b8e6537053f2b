"""KnowAct on file traces: does a memory that *knows* a user's habit make an agent *act* on it?

    cases = run_knowact("data/corpus", "data/knowact/run", methods=["no_context", "filegramos"])
    rates(cases)                 # Know Acc, Act Acc, Utilization Rate per method, persona-clustered CIs
    attribution_shares(cases)    # Know-pass / Act-fail cases: retrieval, comprehension or application

Know (know.py): a direct question about the habit, retrieved and answered like a bench item. Act
(act.py): a held-out task that fully activates the dimension (split.py), retrieved with the task's own
prompt; the acting agent works in a fresh sandbox from that context alone, once with memory and once
without; the calibrated fingerprint reader judges whether the memory run reads as the user's tier and
lands strictly closer to it than the zero-memory run. Failures of known habits are rerun with oracle
evidence and the oracle preference (oracle.py). After arXiv 2607.29433.
"""

from .case import act_context
from .metrics import CATEGORIES, attribute, attribution_shares, paired_differences, rates
from .report import format_report, pick_worked_case, summary_table, worked_case
from .run import CASES, DEFAULT_METHODS, KnowActError, load_cases, run_knowact
from .split import Split, plan_split

__all__ = ["CASES", "CATEGORIES", "DEFAULT_METHODS", "KnowActError", "Split", "act_context", "attribute",
           "attribution_shares", "format_report", "load_cases", "paired_differences", "pick_worked_case", "plan_split",
           "rates",
           "run_knowact", "summary_table", "worked_case"]
