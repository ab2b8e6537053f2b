"""KnowAct on file traces: does a memory that *knows* a user's habit make an agent *act* on it?

    cases = run_knowact("data/corpus", "data/knowact/run", methods=["no_context", "filegramos"])
    rates(cases)                 # Know Acc, Act Acc, Utilization Rate per method, persona-clustered CIs
    attribution_shares(cases)    # Know-pass / Act-fail cases: retrieval, comprehension or application

Know (know.py): a direct question about the habit, retrieved and answered like a bench item, and the same
asked free-form. Act (act.py): three held-out tasks that fully activate the dimension, three seeds each
(split.py), each retrieved with the task's own prompt; the acting agent works in fresh sandboxes from that
context alone, with memory and without (where it knows nothing it acts like a typical user). The Act reader
(act_reader.py, fit on the other personas' sessions) reads the nine runs together: the memory runs pass when
they read as the user's tier and more of them read so one by one than of the zero-memory runs. The runs told
the true tier measure the instrument's ceiling; failures of known habits are rerun with oracle evidence
(oracle.py). Its tables and the worked case: `report.knowact_views`. After arXiv 2607.29433.
"""

from .case import act_context
from .metrics import CATEGORIES, attribute, attribution_shares, paired_differences, rates
from .run import CASES, DEFAULT_METHODS, KnowActError, load_cases, run_knowact
from .split import Split, plan_split

__all__ = ["CASES", "CATEGORIES", "DEFAULT_METHODS", "KnowActError", "Split", "act_context", "attribute",
           "attribution_shares", "load_cases", "paired_differences", "plan_split", "rates", "run_knowact"]
