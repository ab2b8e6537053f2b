"""KnowAct's reports (project-only, after arXiv 2607.29433): rates per method, the failure-attribution stack,
rates by evidence strength, and one worked case. All four read one run's per-case table.

The run (`knowact_cases`) lives in `data/knowact/<backend>-<engine>-<code>[-quick]/`, keyed by the corpus
engine and the KnowAct code, so a rerun with nothing changed only reads the table back.
"""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import polars as pl

from ..bench.score import METHOD_LABELS
from ..knowact import CATEGORIES, attribution_shares, rates, run_knowact
from ..knowact.split import ACT_RUNS, ACT_TASKS
from ..util.cluster_ci import NO_CI_NOTE
from .knowact_views import instrument_table, pick_worked_case, rate_cells, summary_table, worked_case
from .registry import FigureData, TableData, artifact
from .settings import RunSettings, settings_of

NOTE = ("Offline: the shared lexical reader answers Know; the acting agent is the engine's policy on the tiers "
        "`infer_preferences` reads from the context (a simplification of an LLM agent), dimensions it reads nothing "
        f"for drawn from the other personas' tiers; each dimension is read over {ACT_RUNS} act runs ({ACT_TASKS} "
        "held-out tasks, several seeds each) together by a reader fit on the other personas' sessions "
        "(knowact/act_reader.py), against the zero-memory runs of the same tasks and seeds. Cells: estimate "
        "[persona-clustered 95% CI]; counts beside every rate.")
COLORS = {"Know": "#4C78A8", "Act": "#F58518", "Utilization": "#54A24B", "retrieval": "#4C78A8",
          "comprehension": "#E45756", "application": "#B279A2"}


def run_folder(corpus: Path, settings: RunSettings) -> Path:
    """`knowact/<backend>-<engine>-<code>[-quick]` beside the corpus (data/corpus -> data/knowact/...; a corpus
    elsewhere, e.g. a quick reproduce's temporary one, keeps its runs beside it, never in the project's data/):
    code = the KnowAct modules that compute cases (its report module aside) and the harness's code fingerprint
    (memories, reader, backends, fingerprints), so a change to how cases are computed gets a new folder and a
    change to a report does not."""
    import hashlib

    from ..bench.manifest import code_fingerprint, corpus_info
    from ..util import code_closure

    own = [p for p in sorted((code_closure.PACKAGE / "knowact").glob("*.py")) if p.name != "report.py"]
    code = hashlib.sha256((code_closure.digest(own) + code_fingerprint()).encode()).hexdigest()[:12]
    engine = corpus_info(corpus)["engine"] or "unknown"
    name = f"{settings.backend}-{engine}-{code}{'-quick' if settings.quick else ''}"
    return Path(corpus).resolve().parent / "knowact" / name


def knowact_cases(corpus: str | Path | None = None, settings: RunSettings | None = None,
                  progress: bool | None = None) -> tuple[pl.DataFrame, Path, Path]:
    """The per-case table of this run's methods and personas (computed once, then read back), its folder and
    the corpus."""
    from .corpus_source import resolve_corpus

    corpus, settings = resolve_corpus(corpus), settings_of(settings)
    out = run_folder(corpus, settings)
    cases = run_knowact(corpus, out, methods=settings.methods, backend=settings.backend,
                        personas=settings.knowact_personas or settings.personas,
                        workers=settings.workers, progress=progress)
    return cases, out, corpus


def _label(method: str) -> str:
    return METHOD_LABELS.get(method, method)


@artifact("knowact_rates", notebook="08_know_act", corpus=True,
          title="Know vs Act: does memory that knows a file habit make the agent act on it? (per method)",
          note="One case = (method, persona, dimension). Know: the reader picks the user's tier from the memory's "
               "answer to a direct question. Act: on held-out tasks that fully activate the dimension, each retrieved "
               "with the task's own prompt, the memory runs read together as the user's tier, and more of them "
               "one by one than of the zero-memory runs (Act strict: and the zero-memory runs do not read so). "
               "Utilization = KP-AP / KP. "
               "KP-AF: known but not acted on, split by the oracle "
               "reruns into retrieval / comprehension / application failures. " + NOTE)
def knowact_rates(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                  progress: bool | None = None) -> TableData:
    cases = knowact_cases(corpus, settings, progress)[0]
    table = summary_table(cases).with_columns(pl.col("method").map_elements(_label, return_dtype=pl.String))
    return TableData(table, cases.drop("params"))


@artifact("knowact_evidence", notebook="08_know_act", corpus=True,
          title="Know vs Act by evidence strength: how visible the dimension was in the ingested sessions",
          note="Evidence: the strongest paper Table 10 activation of the dimension among the persona's ingested "
               "tasks (full / partial / none), the analogue of KnowAct's explicit / incidental / inferential. The "
               "split designs C, D and E to vary it; A, B and F are fully activated by 26 of 32 tasks and nearly "
               "always read full. Small denominators are visible in n. " + NOTE)
def knowact_evidence(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                     progress: bool | None = None) -> pl.DataFrame:
    cases = knowact_cases(corpus, settings, progress)[0]
    return rate_cells(rates(cases, by=["method", "evidence"]), ["method", "evidence"])


@artifact("knowact_instrument", notebook="08_know_act", corpus=True,
          title="The Act instrument per dimension: its ceiling, its strict variant, and its false passes",
          note="What the Act test can see, whatever the memory. Act ceiling: the runs told the true tier pass the "
               "judge (one case per persona and dimension); strict: and the zero-memory runs do not read as the "
               "user's tier. "
               "Shares: the mean share of a condition's nine runs read as the user's tier one by one (zero memory: the "
               "agent acts like a typical user). Act, tier not conveyed: over every method's cases whose act contexts "
               "never made the agent infer the user's tier, how often Act passes anyway (false passes). " + NOTE)
def knowact_instrument(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                       progress: bool | None = None) -> pl.DataFrame:
    return instrument_table(knowact_cases(corpus, settings, progress)[0])


def knowact_bars(cases: pl.DataFrame) -> FigureData:
    """Know vs Act vs Utilization per method, with persona-clustered CIs as error bars."""
    frame = rates(cases)
    fig = go.Figure()
    for name, column in (("Know", "know_acc"), ("Act", "act_acc"), ("Utilization", "utilization")):
        values = frame[column].fill_null(0.0)
        fig.add_bar(name=name, x=[_label(m) for m in frame["method"]], y=values, marker_color=COLORS[name],
                    error_y={"type": "data", "symmetric": False,  # no bounds (too few personas): no bar
                             "array": (frame[f"{column}_hi"] - values).fill_null(0.0).to_list(),
                             "arrayminus": (values - frame[f"{column}_lo"]).fill_null(0.0).to_list()})
    if frame["act_ceiling"].is_not_null().any():
        fig.add_scatter(name="Act ceiling (told the true tier)", x=[_label(m) for m in frame["method"]],
                        y=frame["act_ceiling"], mode="markers", marker={"symbol": "line-ew-open", "size": 34,
                                                                         "color": "#444", "line": {"width": 2}})
    fig.update_layout(barmode="group", yaxis_title="% of cases (Utilization: % of known)", yaxis_range=[0, 100],
                      title="Know vs Act vs Utilization Rate per memory method"
                      + (f" ({NO_CI_NOTE}: no error bars)" if (frame["know_acc"].is_not_null()
                                                                 & frame["know_acc_lo"].is_null()).any() else ""),
                      template="plotly_white",
                      legend={"orientation": "h", "y": -0.25}, width=1100, height=520)
    return FigureData(fig, frame)


def attribution_stack(cases: pl.DataFrame) -> FigureData:
    """Per method, the shares of Know-pass / Act-fail cases by failure category (KnowAct Table 2)."""
    frame = attribution_shares(cases)
    labels = [f"{_label(m)} (n={n})" for m, n in zip(frame["method"], frame["n_kp_af"], strict=True)]
    fig = go.Figure()
    for category in CATEGORIES:
        fig.add_bar(name=category, y=labels, x=frame[category].fill_null(0.0), orientation="h",
                    marker_color=COLORS[category])
    fig.update_layout(barmode="stack", xaxis_title="% of Know-pass / Act-fail cases", xaxis_range=[0, 100],
                      title="Why a known habit was not acted on (oracle attribution)", template="plotly_white",
                      legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom", "traceorder": "normal"},
                      margin={"t": 110}, width=900, height=200 + 40 * frame.height)
    return FigureData(fig, frame)


@artifact("knowact_utilization", notebook="08_know_act", corpus=True, figure=True,
          title="Know vs Act vs Utilization Rate per memory method (file traces)",
          note="Bars: Know, Act and Utilization with persona-clustered 95% CIs. The dash: the Act ceiling, how often "
               "the act runs told the user's true tier pass the same judge. " + NOTE)
def knowact_utilization(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                        progress: bool | None = None) -> FigureData:
    return knowact_bars(knowact_cases(corpus, settings, progress)[0])


@artifact("knowact_attribution", notebook="08_know_act", corpus=True, figure=True,
          title="Failure attribution of known-but-not-acted habits: retrieval, comprehension, application",
          note="Every Know-pass / Act-fail case is rerun with the oracle evidence (the ingested sessions that show the "
               "dimension best, serialised by the method, no retrieval) and with the oracle preference (the true "
               "tier stated). Pass with the evidence: retrieval failure; only with the stated preference: "
               "comprehension; neither: application. n = the method's KP-AF cases. " + NOTE)
def knowact_attribution(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                        progress: bool | None = None) -> FigureData:
    return attribution_stack(knowact_cases(corpus, settings, progress)[0])


@artifact("knowact_worked_case", notebook="08_know_act", corpus=True,
          title="One worked KnowAct case: the context, the acting trace's tree before and after, and both readings",
          note="FileGramOS's first known-and-acted case on directory organisation (C) whose true tier is not the "
               "agent's neutral default and whose zero-memory run reads another tier (pick_worked_case). One row "
               "per line: the context the memory run acted on (first lines), the memory run's and the zero-memory "
               "run's workspace trees ('+' created, '-' gone), and their readings.")
def knowact_worked_case(corpus: str | Path | None = None, *, settings: RunSettings | None = None,
                        progress: bool | None = None) -> pl.DataFrame:
    from ..knowact import act_context

    cases, out, corpus = knowact_cases(corpus, settings, progress)
    case = pick_worked_case(cases)
    shown = worked_case(case, out)
    context = act_context(corpus, case)
    header = (f"{case['method']} / {case['persona']} / {case['dimension']} on {case['act_tasks']} (first run "
              f"of {case['act_task']} shown): "
              f"true {case['true_tier']}, "
              f"inferred {case['inferred_tier']}; memory runs read {case['memory_tier']} "
              f"(p(true) {case['memory_p_true']:.2f}), zero-memory runs read {case['zero_tier']} "
              f"(p(true) {case['zero_p_true']:.2f}); Know {case['know_pass']}, Act {case['act_pass']}")
    columns = {"context (memory run)": _first(context, 40), "memory run tree": _first(shown["memory_tree"], 80),
               "zero-memory run tree": _first(shown["zero_tree"], 80)}
    n = max(len(v) for v in columns.values())
    rows = {k: [*v, *[""] * (n - len(v))] for k, v in columns.items()}
    return pl.DataFrame({"case": [header, *[""] * (n - 1)], **rows})



def _first(text: str, n: int) -> list[str]:
    lines = text.splitlines()
    return lines[:n] + ([f"... ({len(lines) - n} more lines)"] if len(lines) > n else [])
