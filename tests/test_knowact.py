"""KnowAct: metric arithmetic on hand-made outcomes, the attribution's categories, the split, the act runs'
isolation from ground truth and their replay, and the whole run (offline and on a loopback openai_compat)."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import polars as pl
import pytest

from filegram_kit.engine.policy import NEUTRAL
from filegram_kit.knowact import CATEGORIES, attribute, attribution_shares, plan_split, rates, run_knowact
from filegram_kit.knowact import act as acting
from filegram_kit.knowact.split import MIN_INGEST, RANK
from filegram_kit.report.knowact_views import rate_cells
from filegram_kit.traces.profiles import get_profile, sample_profiles
from filegram_kit.traces.schema import DIMENSION_CODES, DIMENSIONS, Tier
from filegram_kit.traces.tasks import get_task, load_tasks

PERSONA = "p12_prolific_scanner"  # no dimension at the acting agent's neutral default
REAL_ACT = acting.act
EVIDENCE: set[str] = set()  # oracle-evidence contexts seen by _act_calls
TASKS = [f"T-{i:02d}" for i in range(1, 17)]
OTHERS = ["p1_methodical", "p5_balanced_organizer"]  # whose sessions the Act reader is fit on


def case(method, persona, know, act, attribution=None, **extra):
    return {"method": method, "persona": persona, "know_pass": know, "act_pass": act, "attribution": attribution,
            "evidence": "full", "dimension": "A", **extra}


# -- metrics -------------------------------------------------------------------------------------------------


def test_rates_count_know_act_and_utilization_by_hand():
    rows = ([case("m", "p1", True, True, oracle_preference_pass=True)] * 3
            + [case("m", "p1", True, False, "retrieval", oracle_preference_pass=False)]
            + [case("m", "p2", False, True, oracle_preference_pass=False),
               case("m", "p2", False, False, oracle_preference_pass=False),
               case("m", "p2", True, False, "application", oracle_preference_pass=False)]
            + [case("z", "p1", False, False, oracle_preference_pass=True)] * 2)
    out = {r["method"]: r for r in rates(pl.DataFrame(rows), n_boot=200).iter_rows(named=True)}
    m = out["m"]
    assert (m["n"], m["personas"], m["n_kp_ap"], m["n_kp_af"]) == (7, 2, 3, 2)
    assert m["know_acc"] == pytest.approx(500 / 7) and m["act_acc"] == pytest.approx(400 / 7)
    assert m["utilization"] == pytest.approx(60.0)  # 3 / (3 + 2)
    assert m["act_ceiling"] == pytest.approx(300 / 7) and out["z"]["act_ceiling"] == 100.0
    for name in ("know_acc", "act_acc", "utilization", "act_ceiling"):  # 2 personas: too few for an interval
        assert m[name] is not None and m[f"{name}_lo"] is None and m[f"{name}_hi"] is None
    z = out["z"]
    assert z["know_acc"] == 0.0 and z["utilization"] is None and z["utilization_lo"] is None  # nothing known
    assert z["act_acc"] == 0.0 and z["act_acc_lo"] is None  # one persona: no interval, not "[0.0, 0.0]"
    five = rates(pl.DataFrame([{**r, "persona": f"{r['persona']}-{k}"} for r in rows for k in range(3)]),
                 n_boot=200)  # 6 personas: enough
    for name in ("know_acc", "act_acc", "utilization"):
        assert five[f"{name}_lo"][0] <= five[name][0] <= five[f"{name}_hi"][0]
    cells = rate_cells(rates(pl.DataFrame(rows), n_boot=10), ["method"])
    assert cells["Know"][0] == f"{500 / 7:.1f} (CI needs ≥5 personas)"
    without = rates(pl.DataFrame(rows).drop("oracle_preference_pass"), n_boot=10).row(0, named=True)
    assert without["act_ceiling"] is None and without["act_ceiling_lo"] is None  # not measured is not 0
    assert without["know_observer"] is None
    seen = rates(pl.DataFrame(rows).with_columns(observer_pass=pl.col("know_pass")), n_boot=10).row(0, named=True)
    assert seen["know_observer"] == seen["know_acc"]


def test_persona_clustered_interval_is_wider_than_the_cases_suggest_when_personas_disagree():
    rows = [case("m", f"p{i}", i % 2 == 0, False) for i in range(10) for _ in range(10)]
    r = rates(pl.DataFrame(rows), n_boot=500).row(0, named=True)
    assert r["know_acc"] == 50.0
    assert r["know_acc_hi"] - r["know_acc_lo"] > 30  # 10 clusters, not 100 independent cases


def test_rates_by_group_split_the_counts():
    rows = [case("m", "p1", True, True, evidence="full"), case("m", "p1", True, False, "application", evidence="none")]
    out = rates(pl.DataFrame(rows), by=["method", "evidence"], n_boot=50)
    assert dict(zip(out["evidence"], out["utilization"], strict=True)) == {"full": 100.0, "none": 0.0}


@pytest.mark.parametrize(("evidence", "preference"), list(itertools.product([True, False], repeat=2)))
def test_attribution_is_exactly_one_category(evidence, preference):
    got = attribute(evidence, preference)
    assert [c for c in CATEGORIES if c == got] == [got]
    expected = "retrieval" if evidence else "comprehension" if preference else "application"
    assert got == expected


def test_attribution_shares_sum_to_100_and_refuse_an_unattributed_failure():
    rows = [case("m", "p1", True, False, "retrieval"), case("m", "p1", True, False, "comprehension"),
            case("m", "p2", True, False, "comprehension"), case("m", "p2", True, True), case("z", "p1", False, False)]
    shares = {r["method"]: r for r in attribution_shares(pl.DataFrame(rows)).iter_rows(named=True)}
    m = shares["m"]
    assert m["n_kp_af"] == 3 and sum(m[c] for c in CATEGORIES) == pytest.approx(100.0)
    assert m["comprehension"] == pytest.approx(200 / 3)
    assert shares["z"]["n_kp_af"] == 0 and shares["z"]["retrieval"] is None
    with pytest.raises(ValueError, match="no attribution"):
        attribution_shares(pl.DataFrame([case("m", "p1", True, False, None)]))


# -- split ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["p1_methodical", *[p.id for p in sample_profiles(6, seed=3)]])
def test_split_holds_out_a_fully_activating_task_per_dimension(persona):
    tasks = list(load_tasks().values())
    split = plan_split(persona, tasks, seed=0)
    by_id = {t.id: t for t in tasks}
    assert len(split.ingest) >= MIN_INGEST
    for d, tasks_of_d in split.act.items():
        full = [t.id for t in tasks if t.activation(d) == "full"]
        assert len(tasks_of_d) == min(3, len(full)) == len(set(tasks_of_d))
        assert all(by_id[t].activation(d) == "full" and t not in split.ingest for t in tasks_of_d)
        runs = split.runs(d)
        assert len(runs) >= 9 and {t for t, _ in runs} == set(tasks_of_d) and len(set(runs)) == len(runs)
    for d in DIMENSION_CODES:  # labels describe what was ingested, whatever the design aimed at
        strongest = max((by_id[t].activation(d) for t in split.ingest), key=RANK.__getitem__)
        assert split.evidence[d] == strongest
        assert split.evidence_sessions[d] == sum(by_id[t].activation(d) == "full" for t in split.ingest)
    for d, target in split.target.items():
        assert split.evidence[d] == target
    assert plan_split(persona, tasks, seed=0) == split


def test_the_evidence_design_varies_across_personas_and_seeds():
    tasks = list(load_tasks().values())
    labels = {(plan_split(p.id, tasks, seed=s).evidence["D"]) for p in sample_profiles(12, seed=5) for s in (0, 1)}
    assert {"full", "none"} <= labels
    assert plan_split("p1_methodical", tasks, seed=0) != plan_split("p1_methodical", tasks, seed=1)


# -- the act step ----------------------------------------------------------------------------------------------


PRIOR = {d: {"L": 1 / 3, "M": 1 / 3, "R": 1 / 3} for d in DIMENSION_CODES}


def test_the_acting_profile_holds_only_the_given_tiers():
    persona = get_profile(PERSONA)
    defaults = {d: "R" for d in DIMENSION_CODES}
    blank = acting.acting_profile(persona, {}, defaults)
    assert {d: t.value for d, t in blank.tiers.items()} == defaults and dict(blank.attributes) == {}
    given = acting.acting_profile(persona, {"C": "L"}, defaults)
    assert given.tiers["C"].value == "L" and all(given.tiers[d].value == "R" for d in DIMENSION_CODES if d != "C")
    prompt = acting.act_prompt(persona, "")
    assert not any(DIMENSIONS[d].describe(t) in prompt for d in DIMENSION_CODES for t in "LMR")


def test_an_act_run_replays_byte_identically_from_its_seed(tmp_path):
    persona, task = get_profile(PERSONA), get_task("T-18")
    kw = {"workspaces": tmp_path / "ws", "tiers": {"C": "L"}, "prior": PRIOR}
    runs = [acting.act(persona, task, tmp_path / name, 0, seed=3, **kw) for name in ("one", "two")]
    assert (runs[0] / "events.json").read_bytes() == (runs[1] / "events.json").read_bytes()
    for other in (acting.act(persona, task, tmp_path / "three", 0, seed=4, **kw),
                  acting.act(persona, task, tmp_path / "four", 1, seed=3, **kw)):  # another seed, another run index
        assert (other / "events.json").read_bytes() != (runs[0] / "events.json").read_bytes()
    given = json.loads((tmp_path / "one" / "given.json").read_text())
    assert given["tiers"]["C"] == "L" and given["tiers"]["A"] is None


def test_an_uninformed_agent_follows_the_population_not_the_neutral_tier():
    persona, task = get_profile(PERSONA), get_task("T-18")
    tiers = {p.id: {d: t.value for d, t in p.tiers.items()} for p in sample_profiles(12, seed=2)}
    prior = acting.default_prior(tiers, PERSONA)
    assert all(abs(sum(prior[d].values()) - 1) < 1e-9 and min(prior[d].values()) > 0 for d in DIMENSION_CODES)
    draws = [acting.default_tiers(persona, task, acting.run_seed(0, k), PRIOR) for k in range(12)]
    assert all(len({draw[d] for draw in draws}) > 1 for d in DIMENSION_CODES)  # not a fixed (neutral) default
    assert draws[0] == acting.default_tiers(persona, task, acting.run_seed(0, 0), PRIOR)  # common random numbers
    skewed = acting.default_prior({**tiers, "x": {d: "L" for d in DIMENSION_CODES}}, "y")
    assert all(skewed[d]["L"] > prior[d]["L"] - 1e-9 for d in DIMENSION_CODES)


def test_a_neutral_tier_can_be_acted_on_and_an_unchanged_reading_cannot():
    from filegram_kit.memory.filegramos.calibration import Reading

    def seen(probabilities, share):
        best = max(probabilities, key=probabilities.get)
        return acting.Observed(Reading("B", best, probabilities[best], probabilities), share)

    told = seen({"L": 0.05, "M": 0.9, "R": 0.05}, 0.8)
    zero = seen({"L": 0.2, "M": 0.6, "R": 0.2}, 0.35)  # the population's mix reads like its middle tier
    assert NEUTRAL["B"].value == "M" and acting.act_pass(told, zero, "M")  # yet fewer runs read M one by one
    assert not acting.act_pass(zero, zero, "M")  # no memory, same runs: never a pass
    assert not acting.act_pass_strict(told, zero, "M")  # the strict variant gives the middle tier no credit
    assert acting.act_pass_strict(told, seen({"L": 0.6, "M": 0.3, "R": 0.1}, 0.3), "M")
    assert not acting.act_pass(seen({"L": 0.5, "M": 0.45, "R": 0.05}, 0.5), zero, "M")  # reads another tier


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    from filegram_kit.engine import build_corpus

    out = tmp_path_factory.mktemp("knowact") / "corpus"
    build_corpus(out, profiles=[PERSONA, *OTHERS], tasks=TASKS, workers=1, progress=False)
    return out


def _act_calls(monkeypatch, tiny, tmp_path, persona_tiers=None):
    """Every (condition, task, tiers, context) the act step is handed, for a run whose persona truth may be
    replaced (the trajectories stay the same)."""
    from filegram_kit.knowact import case as case_module

    calls = []
    original = REAL_ACT

    def spy(persona, task, root, k, **kw):
        calls.append((root.name, task.id, k, kw.get("tiers"), kw.get("context")))
        return original(persona, task, root, k, **kw)

    monkeypatch.setattr(case_module.acting, "act", spy)
    real_evidence = case_module.oracle_evidence

    def evidence_spy(*args, **kw):  # marks the oracle-evidence contexts (they follow the truth by design)
        text = real_evidence(*args, **kw)
        EVIDENCE.add(text)
        return text

    monkeypatch.setattr(case_module, "oracle_evidence", evidence_spy)
    if persona_tiers is not None:
        from filegram_kit.bench import ground_truth as facts_module

        real = facts_module.corpus_facts

        def swapped(corpus):
            facts = real(corpus)
            profile = dataclasses.replace(facts.personas[PERSONA], tiers=persona_tiers)
            return dataclasses.replace(facts, personas={**facts.personas, PERSONA: profile})

        monkeypatch.setattr(case_module, "corpus_facts", swapped)
    cases = run_knowact(tiny, tmp_path / "out", methods=["no_context", "full_context"], personas=[PERSONA], workers=1,
                        progress=False)
    return cases, calls


def test_the_act_step_never_sees_the_true_tiers_except_in_the_oracle_preference_run(tiny, tmp_path, monkeypatch):
    truth = get_profile(PERSONA).tiers
    cases, calls = _act_calls(monkeypatch, tiny, tmp_path / "a")
    flipped = {d: NEUTRAL[d] for d in DIMENSION_CODES}  # another truth, same trajectories
    _, flipped_calls = _act_calls(monkeypatch, tiny, tmp_path / "b", flipped)
    def is_stated(call):
        return call[4].startswith("## What this user prefers") or call[4] in EVIDENCE

    memory = [c for c in calls if not is_stated(c)]
    assert memory and memory == [c for c in flipped_calls if not is_stated(c)]  # truth does not reach them
    assert any(key == "xxxxxx" and context == "" for key, *_, context in memory)  # the zero-memory runs
    stated = [c for c in calls if c[4].startswith("## What this user prefers")]
    told = {next(d for d, t in tiers.items() if t) for *_, tiers, _ in stated}
    assert told == set(DIMENSION_CODES)  # once per persona and dimension, each told one tier only
    for key, _, _, tiers, context in stated:
        d = next(d for d, t in tiers.items() if t)
        assert tiers[d] == truth[d].value and sum(t is not None for t in tiers.values()) == 1
        assert DIMENSIONS[d].describe(truth[d]) in context and key == acting.tiers_key(tiers)
    no_context = cases.filter(pl.col("method") == "no_context")
    assert not no_context["act_pass"].any()  # given nothing, it runs exactly the zero-memory runs
    assert no_context["memory_trajectory"].to_list() == no_context["zero_trajectory"].to_list()


def test_the_run_writes_one_row_per_case_and_resumes(tiny, tmp_path):
    out = tmp_path / "run"
    cases = run_knowact(tiny, out, methods=["no_context", "filegramos"], personas=[PERSONA], workers=1,
                        progress=False)
    assert cases.height == 2 * len(DIMENSION_CODES) and pl.read_parquet(out / "cases.parquet").equals(cases)
    observer = cases.group_by("dimension").agg(pl.col("observer_tier").n_unique())  # one reading per persona
    assert observer["observer_tier"].to_list() == [1] * len(DIMENSION_CODES)
    truth = get_profile(PERSONA).tiers
    assert all(r["observer_pass"] == (r["observer_tier"] == truth[r["dimension"]].value) for r in cases.iter_rows(
        named=True))
    failed = cases.filter(pl.col("know_pass") & ~pl.col("act_pass"))
    assert failed["attribution"].is_in(list(CATEGORIES)).all()
    assert cases.filter(~(pl.col("know_pass") & ~pl.col("act_pass")))["attribution"].is_null().all()
    for path in cases["memory_trajectory"].to_list() + cases["zero_trajectory"].to_list():
        assert (out / path / "events.json").is_file()
    before = {p: p.stat().st_mtime_ns for p in (out / "act").rglob("events.json")}
    again = run_knowact(tiny, out, methods=["no_context", "filegramos"], personas=[PERSONA], workers=1,
                        progress=False)
    assert again.equals(cases) and {p: p.stat().st_mtime_ns for p in (out / "act").rglob("events.json")} == before
    with pytest.raises(ValueError, match="seed"):
        run_knowact(tiny, out, methods=["no_context"], seed=1, workers=1, progress=False)
    with pytest.raises(ValueError, match="acting agent 'robot'"):
        run_knowact(tiny, out, methods=["no_context"], agent="robot", workers=1, progress=False)
    with pytest.raises(KeyError, match="unknown method"):
        run_knowact(tiny, out, methods=["no_such_memory"], workers=1, progress=False)


def test_fewer_act_runs_read_each_dimension_over_fewer_runs_of_the_same_seeds(tiny, tmp_path):
    """`act_runs` (the CLI's --act-runs) trades power for agent runs: each dimension is read over its act tasks
    with fewer seeds, the runs of seed index 0 being the very runs a full run makes (an LLM agent's finished runs
    are reused), and a folder never mixes the two."""
    import math
    import shutil

    full = tmp_path / "full"
    nine = run_knowact(tiny, full, methods=["no_context"], personas=[PERSONA], workers=1, progress=False)
    few = tmp_path / "few"
    few.mkdir()
    shutil.copytree(full / "act", few / "act")
    shutil.copytree(full / "workspaces", few / "workspaces")
    before = {p.relative_to(few): p.stat().st_mtime_ns for p in (few / "act").rglob("events.json")}
    three = run_knowact(tiny, few, methods=["no_context"], personas=[PERSONA], workers=1, progress=False, act_runs=3)
    for cases, total in ((nine, 9), (three, 3)):
        tasks = [len(t.split()) for t in cases["act_tasks"]]
        assert cases["act_runs"].to_list() == [n * math.ceil(total / n) for n in tasks]
    assert (three["act_runs"] < nine["act_runs"]).all()
    assert {p.relative_to(few): p.stat().st_mtime_ns for p in (few / "act").rglob("events.json")} == before
    assert all("/s0/" in path for path in three["zero_trajectory"].to_list())
    assert json.loads((few / "knowact.json").read_text(encoding="utf-8"))["act_runs"] == 3
    with pytest.raises(ValueError, match="act_runs=9, not 3"):
        run_knowact(tiny, full, methods=["no_context"], personas=[PERSONA], workers=1, progress=False, act_runs=3)
    with pytest.raises(ValueError, match="at least 1"):
        run_knowact(tiny, tmp_path / "none", methods=["no_context"], workers=1, progress=False, act_runs=0)


def _loopback_reply(request):
    """A stand-in model: tiers for infer_preferences, option A for every multiple-choice question."""
    prompt = json.dumps(request.json["messages"])
    content = ('{"A": "R", "B": "L", "C": "R", "D": "L", "E": "M", "F": "unknown"}' if "[infer_preferences" in prompt
               else '{"answer": "A", "confidence": 0.8}')
    return 200, {"id": "c", "object": "chat.completion", "created": 0, "model": "local",
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                              "finish_reason": "stop"}], "usage": {"prompt_tokens": 9, "completion_tokens": 3}}


def test_the_command_runs_against_a_loopback_openai_compatible_server(tiny, tmp_path, monkeypatch, server, capsys):
    from filegram_kit.cli import main

    for variable in ("OPENAI_API_KEY", "OPENAI_MODEL"):
        monkeypatch.delenv(variable, raising=False)
    (tmp_path / "empty.toml").write_text("", encoding="utf-8")
    monkeypatch.setenv("FILEGRAM_CONFIG", str(tmp_path / "empty.toml"))
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    server.reply("/v1/chat/completions", _loopback_reply, times=500)
    out = tmp_path / "out"
    code = main(["knowact", "--corpus", str(tiny), "--methods", "no_context,full_context", "--backend",
                 "openai_compat", "--out", str(out), "--workers", "1", "--personas", PERSONA])
    assert code == 0, capsys.readouterr().err
    cases = pl.read_parquet(out / "cases.parquet")
    assert set(cases["backend"]) == {"openai_compat"} and cases.height == 12
    full = cases.filter(pl.col("method") == "full_context")
    assert dict(zip(full["dimension"], full["inferred_tier"], strict=True)) == {
        "A": "R", "B": "L", "C": "R", "D": "L", "E": "M", "F": "unknown"}  # the model's reply, parsed
    prompts = [json.dumps(r.json) for r in server.requests_to("/v1/chat/completions")]
    assert any("[infer_preferences" in p for p in prompts) and "Utilization" in capsys.readouterr().out


def test_the_command_takes_a_short_persona_id_as_the_corpus_names_it(tiny):
    """`filegram corpus --profiles p12` takes a short id; `filegram knowact --personas p12` once refused it."""
    from filegram_kit.cli.knowact import corpus_persona_ids

    short = PERSONA.split("_")[0]
    assert corpus_persona_ids(tiny, [short, f" {PERSONA}", "p99", ""]) == [PERSONA, PERSONA, "p99"]


def test_the_llm_acting_agent_is_prompted_with_the_context_not_the_persona(tmp_path, monkeypatch):
    from filegram_kit.llm import get_backend

    persona, model, seen = get_profile(PERSONA), get_backend("offline"), []
    step = model.agent_step
    monkeypatch.setattr(model, "agent_step", lambda messages, tools: seen.append(messages[0]["content"]) or
                        step(messages, tools))
    run = acting.act(persona, get_task("T-05"), tmp_path / "llm", 0, seed=0, workspaces=tmp_path / "ws", agent="llm",
                     context="## Memory\nThe user nests folders three levels deep.", backend=model)
    assert (run / "events.json").is_file() and seen
    assert all("nests folders three levels deep" in s for s in seen)
    assert not any(DIMENSIONS[d].describe(persona.tiers[d]) in s for d in DIMENSION_CODES for s in seen)


def test_an_llm_act_run_whose_model_call_fails_for_good_ends_unfinished_with_its_error(tmp_path, monkeypatch,
                                                                                         capsys):
    """A real small model's window cannot hold a full-context prompt: that run is recorded, KnowAct goes on."""
    from filegram_kit.llm import get_backend
    from filegram_kit.llm.context_window import ContextOverflow

    persona, model, calls = get_profile(PERSONA), get_backend("offline"), []
    step = model.agent_step

    def second_call_overflows(messages, tools):
        calls.append(1)
        if len(calls) == 2:
            raise ContextOverflow("the prompt is 166154 characters; its budget is 1986")
        return step(messages, tools)

    monkeypatch.setattr(model, "agent_step", second_call_overflows)
    run = acting.act(persona, get_task("T-05"), tmp_path / "out" / "act" / "llm" / "key", 0, seed=0,
                     workspaces=tmp_path / "ws", agent="llm", context="## Memory\nnotes", backend=model)
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["error"].startswith("ContextOverflow") and summary["completed"] is False
    events = json.loads((run / "events.json").read_text(encoding="utf-8"))
    kinds = [e["event_type"] for e in events]
    assert kinds.count("iteration_start") == kinds.count("iteration_end") == 2 and kinds[-1] == "session_end"
    assert acting.act_errors(tmp_path / "out") == {"ContextOverflow": 1}
    logged = capsys.readouterr().err.splitlines()  # a run takes minutes on a local model: each one is logged
    assert len(logged) == 1 and run.name in logged[0] and "under key" in logged[0]
    assert "model error: ContextOverflow" in logged[0] and f"{summary['total_tool_calls']} tool calls" in logged[0]
    # a resumed KnowAct run runs it again (errors are never cached): with a model that answers, it finishes
    monkeypatch.setattr(model, "agent_step", step)
    again = acting.act(persona, get_task("T-05"), tmp_path / "out" / "act" / "llm" / "key", 0, seed=0,
                       workspaces=tmp_path / "ws", agent="llm", context="## Memory\nnotes", backend=model)
    assert again == run and "error" not in json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert acting.act_errors(tmp_path / "out") == {}
    logged = capsys.readouterr().err.splitlines()
    assert len(logged) == 1 and "model error" not in logged[0]
    acting.act(persona, get_task("T-05"), tmp_path / "out" / "act" / "llm" / "key", 0, seed=0,
               workspaces=tmp_path / "ws", agent="llm", context="## Memory\nnotes", backend=model)
    assert capsys.readouterr().err == ""  # a run found on disk is not run, nor logged


def test_paired_differences_compare_the_same_cases():
    from filegram_kit.knowact.metrics import paired_differences

    rows = [case("ref", p, True, a, dimension=d) for p, d, a in (("p1", "A", True), ("p1", "B", False),
                                                                  ("p2", "A", True))]
    rows += [case("m", p, k, a, dimension=d) for p, d, k, a in (("p1", "A", False, False), ("p1", "B", True, True),
                                                                 ("p2", "A", True, False), ("p3", "A", True, True))]
    out = paired_differences(pl.DataFrame(rows), "ref", n_boot=100).row(0, named=True)
    assert out["n"] == 3  # p3 has no reference case: not paired
    assert out["know_diff"] == pytest.approx(-100 / 3) and out["act_diff"] == pytest.approx(-100 / 3)
    assert out["act_diff_lo"] is None and out["act_diff_hi"] is None  # 2 paired personas: no interval
    many = pl.DataFrame([{**r, "persona": f"{r['persona']}-{k}"} for r in rows for k in range(3)])
    out = paired_differences(many, "ref", n_boot=100).row(0, named=True)
    assert out["act_diff_lo"] <= out["act_diff"] <= out["act_diff_hi"]
    assert paired_differences(pl.DataFrame(rows), "absent").is_empty()


def test_a_persona_with_too_few_tasks_is_refused_by_name():
    tasks = [get_task(t) for t in ("T-01", "T-02", "T-03")]  # none fully activates C or D
    with pytest.raises(ValueError, match=r"p1_methodical: .*dimension\(s\) C, D"):
        plan_split("p1_methodical", tasks)
    with pytest.raises(ValueError, match="p1_methodical: only"):
        plan_split("p1_methodical", [get_task(t) for t in ("T-18", "T-01", "T-02")])


def test_free_form_know_is_counted_over_the_cases_asked_only():
    rows = [case("m", "p1", True, True, know_free_pass=True), case("m", "p1", True, False, know_free_pass=False),
            case("m", "p2", False, False, know_free_pass=None),  # dimension E: nothing asked
            case("m", "p2", True, True, know_free_pass=True)]
    m = rates(pl.DataFrame([{**r, "persona": f"{r['persona']}-{k}"} for r in rows for k in range(3)]),
              n_boot=50).row(0, named=True)  # 6 personas, so the rate has an interval
    assert m["n_free"] == 9 and m["know_free"] == pytest.approx(200 / 3)
    assert m["know_free_lo"] <= m["know_free"] <= m["know_free_hi"]
    assert rates(pl.DataFrame(rows).drop("know_free_pass"), n_boot=10).row(0, named=True)["know_free"] is None


class _Says:
    """A memory whose retrieval returns a fixed text (what it 'holds' about the user)."""

    def __init__(self, text):
        self.text = text

    def retrieve(self, query, *, backend):
        from filegram_kit.memory.base import Context

        return Context(self.text)


def test_free_form_know_passes_a_memory_that_states_the_value_and_nobody_else():
    from filegram_kit.bench import templates as tpl
    from filegram_kit.knowact.know import OWN_OF, free_know_items, know_test
    from filegram_kit.llm import get_backend

    backend, persona = get_backend("offline"), get_profile(PERSONA)
    items = free_know_items(persona)
    assert [i.metadata["dimension"] for i in items] == [d for d in DIMENSION_CODES if d in OWN_OF]  # E: none
    assert all(not i.is_mcq for i in items)

    def statement(tier_of):
        return "\n".join(f"This user's {tpl.attribute_label(OWN_OF[i.metadata['dimension']])}: "
                         f"{tpl.attribute_value(OWN_OF[i.metadata['dimension']], tier_of(i.metadata['tier']))}."
                         for i in items)

    right = know_test(_Says(statement(lambda t: t)), items, backend=backend)
    wrong = know_test(_Says(statement(lambda t: {"L": "R", "M": "L", "R": "L"}[t])), items, backend=backend)
    empty = know_test(_Says(""), items, backend=backend)
    assert sum(r["is_correct"] for r in right) >= len(items) - 1  # the truth in the memory's words is read
    assert not any(r["is_correct"] for r in empty) and sum(r["is_correct"] for r in wrong) <= 1


# -- the Act reader --------------------------------------------------------------------------------------------


def _reader_facts(n_personas=9):
    """Facts of n personas over all tasks, with a synthetic feature frame where `total_deletes` carries E."""
    from filegram_kit.bench.ground_truth import CorpusFacts, Expression

    profiles = sample_profiles(n_personas, seed=11)
    tasks = load_tasks()
    sessions = {p.id: {t: f"{p.id}_{t}" for t in tasks} for p in profiles}
    expressed = {tid: Expression(tiers={d: p.tiers[d].value for d in DIMENSION_CODES}, attributes={}, source="x")
                 for p in profiles for tid in sessions[p.id].values()}
    fields = {f.name for f in dataclasses.fields(CorpusFacts)}
    base = {"personas": {p.id: p for p in profiles}, "tasks": tasks, "sessions": sessions, "expressed": expressed}
    facts = CorpusFacts(**{k: v for k, v in base.items() if k in fields},
                        **{k: {} for k in fields - set(base)})
    return profiles, facts


def test_the_act_reader_reads_a_visible_habit_and_never_learns_from_the_persona_under_test():
    import numpy as np

    from filegram_kit.knowact.act_reader import fit_act_reader

    profiles, facts = _reader_facts()
    rng = np.random.default_rng(0)
    rate = {"L": 2.0, "M": 0.6, "R": 0.0}
    rows = [{"trajectory_id": tid, "total_deletes": float(rng.poisson(rate[p.tiers["E"].value])),
             "delete_to_create": 0.0, **{f: float(rng.random()) for f in ("files_created", "total_edits")}}
            for p in profiles for tid in facts.sessions[p.id].values()]
    features = pl.DataFrame(rows)
    target = profiles[0]
    reader = fit_act_reader(features, facts, target.id, runs=9)
    own = features.filter(pl.col("trajectory_id").str.starts_with(target.id + "_")).head(9)
    reading = reader.read(own, "E")
    assert reading.tier == target.tiers["E"].value and abs(sum(reading.probabilities.values()) - 1) < 1e-3
    other = next(t for t in Tier if t != target.tiers["E"])
    flipped = dataclasses.replace(target, tiers={**target.tiers, "E": other})
    swapped = dataclasses.replace(facts, personas={**facts.personas, target.id: flipped})
    assert fit_act_reader(features, swapped, target.id, runs=9).read(own, "E") == reading  # its labels unused
    with pytest.raises(ValueError, match="two other personas"):
        fit_act_reader(features.filter(pl.col("trajectory_id").str.starts_with(target.id + "_")), facts, target.id,
                       runs=9)


def test_act_without_the_tier_conveyed_counts_only_cases_no_context_told():
    rows = [case("m", "p1", True, True, true_tier="L", inferred_tiers="T-01:L T-02:x T-03:M"),  # conveyed once
            case("m", "p1", False, True, true_tier="L", inferred_tiers="T-01:x T-02:M T-03:M"),  # a false pass
            case("m", "p2", False, False, true_tier="R", inferred_tiers="T-01:x T-02:x T-03:x"),
            case("m", "p2", False, False, true_tier="R", inferred_tiers="T-01:L T-02:M T-03:x")]
    row = rates(pl.DataFrame(rows), n_boot=50).row(0, named=True)
    assert row["n_unconveyed"] == 3 and row["act_unconveyed"] == pytest.approx(100 / 3)
    assert rates(pl.DataFrame(rows).drop("inferred_tiers"), n_boot=50)["act_unconveyed"][0] is None


def test_the_instrument_table_counts_each_pair_once_and_pools_false_passes():
    from filegram_kit.report.knowact_views import instrument_table

    def row(method, persona, dimension, told, act, inferred):
        return case(method, persona, True, act, dimension=dimension, true_tier="L", inferred_tiers=inferred,
                    oracle_preference_pass=told, oracle_preference_strict=False, zero_share=0.3,
                    oracle_preference_share=0.7 if told else 0.2)

    rows = [row(m, p, d, told, act, inferred)
            for m, act, inferred in (("a", False, "T-01:x"), ("b", True, "T-01:M"))  # b passes without the tier
            for p, d, told in (("p1", "A", True), ("p2", "A", False), ("p1", "B", True))]
    table = instrument_table(pl.DataFrame(rows), n_boot=50)
    by = {r["dimension"]: r for r in table.iter_rows(named=True)}
    assert by["A"]["n"] == 2 and by["A"]["Act ceiling"].startswith("50.0") and by["B"]["n"] == 1
    assert by["all"]["n"] == 3 and by["all"]["Act ceiling"].startswith("66.7")
    assert by["all"]["cases, tier not conveyed"] == 6 and by["all"]["Act, tier not conveyed"].startswith("50.0")
    assert by["A"]["told runs read as the user"] == pytest.approx(0.45)


def test_a_corpus_of_fewer_than_three_personas_is_refused_before_anything_runs(tiny, tmp_path, monkeypatch):
    from filegram_kit.bench import ground_truth as facts_module
    from filegram_kit.knowact import KnowActError

    real = facts_module.corpus_facts
    monkeypatch.setattr(facts_module, "corpus_facts", lambda corpus: dataclasses.replace(
        real(corpus), sessions={PERSONA: real(corpus).sessions[PERSONA]}))
    with pytest.raises(KnowActError, match="at least 3 personas"):
        run_knowact(tiny, tmp_path / "out", methods=["no_context"], workers=1, progress=False)
    assert not (tmp_path / "out").exists()


def test_the_run_folder_lives_beside_the_corpus_it_reads(tmp_path):
    """A corpus outside the project (a quick reproduce's temporary one) must not reuse the project's data/knowact."""
    from filegram_kit.report.knowact_figures import run_folder
    from filegram_kit.report.settings import RunSettings

    corpus = tmp_path / "elsewhere" / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "corpus.json").write_text('{"engine": "abc123"}', encoding="utf-8")
    folder = run_folder(corpus, RunSettings(quick=True))
    assert folder.parent == (tmp_path / "elsewhere" / "knowact").resolve()
    assert folder.name.startswith("offline-abc123-") and folder.name.endswith("-quick")


def test_case_rows_are_read_in_method_order_and_old_rows_in_todays_columns(tmp_path):
    from filegram_kit.knowact.run import load_cases

    def rows(method, persona, **extra):
        return [{"method": method, "persona": persona, "dimension": d, "know_attributes_total": 3, **extra}
                for d in "BA"]

    for persona, method, extra in (("p2", "zep", {"know_attributes_passed": 2}),
                                   ("p1", "zep", {"know_attributes_correct": 1}),  # written before the rename
                                   ("p1", "mem0", {"know_attributes_passed": 3})):
        path = tmp_path / "units" / persona / f"{method}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(rows(method, persona, **extra)), encoding="utf-8")
    frame = load_cases(tmp_path, methods=["zep", "mem0"])
    assert "know_attributes_correct" not in frame.columns
    assert frame.select("method", "persona", "dimension", "know_attributes_passed").rows() == [
        ("zep", "p1", "A", 1), ("zep", "p1", "B", 1), ("zep", "p2", "A", 2), ("zep", "p2", "B", 2),
        ("mem0", "p1", "A", 3), ("mem0", "p1", "B", 3)]
    with pytest.raises(FileNotFoundError, match="no KnowAct case rows"):
        load_cases(tmp_path / "empty")
