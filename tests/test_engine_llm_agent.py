"""The LLM agent: a model drives the engine's recording tools; tested with a scripted and the offline model."""

from __future__ import annotations

import json

from filegram_kit.engine import build_corpus, generate_trajectory
from filegram_kit.engine.llm_agent import persona_prompt
from filegram_kit.llm import get_backend
from filegram_kit.llm.base import Backend, Computed
from filegram_kit.traces.load import clean, load_trajectories, read_trajectory
from filegram_kit.traces.profiles import Perturbation, get_profile
from filegram_kit.traces.schema import Tier
from filegram_kit.traces.tasks import get_task


class Scripted(Backend):
    """A 'model' that plays back tool calls and records the conversations it was shown."""

    name, default_model = "scripted", "script-1"

    def __init__(self, turns, **kwargs):
        super().__init__(**kwargs)
        self.turns, self.seen = list(turns), []

    def _compute(self, task, inputs, params):
        self.seen.append(json.loads(json.dumps(inputs["messages"])))
        text, calls = self.turns.pop(0)
        return Computed({"text": text, "tool_calls": [{"name": n, "arguments": a, "id": f"c{i}"}
                                                      for i, (n, a) in enumerate(calls)]}, 1000, 50)


def test_the_persona_prompt_carries_tiers_language_and_perturbation():
    p1 = get_profile("p1")  # Chinese, all L but F=M
    text = persona_prompt(p1, Perturbation(p1.id, "T-12", "D", Tier.L, Tier.M))
    assert "Sequential deep reading" in text and "Chinese" in text
    assert "BEHAVIORAL ADJUSTMENT" in text and "balanced refinement instead of incremental small edits" in text
    assert "BEHAVIORAL ADJUSTMENT" not in persona_prompt(get_profile("p3"))


def test_scripted_tool_calls_act_on_the_sandbox_and_are_recorded(tmp_path):
    model = Scripted([
        ("Look around.", [("ls", {"path": "."})]),
        ("Make a folder and a note.", [("bash", {"command": "mkdir -p out"}),
                                        ("write", {"file_path": "out/n.md", "content": "# N"})]),
        ("Oops.", [("read", {"file_path": "missing.md"})]),
        ("Done.", []),
    ])
    path = generate_trajectory(get_profile("p2"), get_task("T-04"), tmp_path / "signal",
                               workspace_cache=tmp_path / "ws", agent="llm", backend=model)
    traj = read_trajectory(path)
    types = [e.event_type for e in traj.events]
    assert types.count("iteration_start") == 4 and types.count("llm_response") == 4
    assert [e["tool_name"] for e in traj.events if e.event_type == "tool_call"] == ["ls", "bash", "write", "read"]
    assert "dir_create" in types and "file_write" in types and "error_encounter" in types
    assert traj.summary["completed"] and traj.summary["model_provider"] == "scripted"
    tool_turn = model.seen[-1][-1]  # the model saw the failed read's error as a tool message
    assert tool_turn["role"] == "tool" and "ERROR (file_not_found)" in tool_turn["content"]
    responses = [e for e in traj.events if e.event_type == "llm_response"]
    assert responses[0]["input_tokens"] == 1000 and responses[-1]["stop_reason"] == "end_turn"


def test_the_iteration_cap_ends_an_endless_run_as_incomplete(tmp_path, monkeypatch):
    from filegram_kit.engine import llm_agent

    monkeypatch.setattr(llm_agent, "MAX_ITERATIONS", 3)
    model = Scripted([("again", [("ls", {"path": "."})])] * 3)
    path = generate_trajectory(get_profile("p2"), get_task("T-04"), tmp_path / "signal",
                               workspace_cache=tmp_path / "ws", agent="llm", backend=model)
    summary = json.loads((path / "summary.json").read_text())
    assert summary["total_iterations"] == 3 and summary["completed"] is False


def test_offline_model_runs_a_deterministic_llm_corpus(tmp_path):
    for folder in ("a", "b"):
        build_corpus(tmp_path / folder, profiles=["p3"], tasks=["T-09", "T-15"], workers=1, progress=False,
                     agent="llm", backend="offline")
    a, b = (sorted((tmp_path / f / "signal").rglob("events.json")) for f in ("a", "b"))
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    trajs = load_trajectories(tmp_path / "a")
    assert not trajs.quarantine and json.loads((tmp_path / "a" / "corpus.json").read_text())["agent"] == "llm/offline"
    cleaned, _ = clean(trajs)
    for traj in cleaned:
        kinds = {e.event_type for e in traj.events}
        assert {"file_browse", "file_read", "file_write"} <= kinds  # listed, read, wrote its notes
    assert get_backend("offline").name == "offline"


def test_a_long_conversation_is_compacted_without_orphan_tool_answers(tmp_path):
    import numpy as np

    from filegram_kit.engine.llm_agent import KEEP_MESSAGES, LLMAgent
    from filegram_kit.engine.recorder import Recorder, SimClock
    from filegram_kit.engine.tools import ToolBox
    from filegram_kit.traces.media import MediaStore

    (tmp_path / "box").mkdir()
    (tmp_path / "box" / "a.md").write_text("alpha " * 400)
    clock, rng = SimClock(0.0), np.random.default_rng(0)
    recorder = Recorder(root=tmp_path / "box", trajectory_id="p_T-01", profile_id="p", clock=clock, rng=rng,
                        media=MediaStore(tmp_path / "media", clock=clock.now))
    model = Scripted([("read", [("read", {"file_path": "a.md"})])] * 12 + [("done", [])])
    agent = LLMAgent(get_profile("p3"), get_task("T-09"), model, ToolBox(tmp_path / "box", recorder, clock, rng),
                     recorder, clock, context_budget=1500)
    assert agent.run()["completed"]
    assert recorder.stats["compactions"] >= 1
    for conversation in model.seen:
        assert conversation[0]["role"] == "system" and conversation[1]["role"] == "user"
        assert len(conversation) == 2 or conversation[2]["role"] != "tool"  # no tool answer without its call
        assert len(conversation) <= max(KEEP_MESSAGES + 2, 2 + 2 * 12)


def test_a_model_call_that_fails_for_good_leaves_that_run_unfinished_and_the_next_build_runs_it_again(
        tmp_path, monkeypatch):
    """A timeout or a prompt the window cannot hold once ended the whole corpus build."""
    from filegram_kit.llm.offline import OfflineBackend
    from filegram_kit.llm.retry import ProviderError

    step = OfflineBackend.agent_step

    def times_out_on_t15(self, messages, tools):
        if messages[1]["content"] == get_task("T-15").prompt_for(get_profile("p3")):
            raise ProviderError("openai_compat chat completion: timed out after 600 s")
        return step(self, messages, tools)

    monkeypatch.setattr(OfflineBackend, "agent_step", times_out_on_t15)
    report = build_corpus(tmp_path / "c", profiles=["p3"], tasks=["T-09", "T-15"], progress=False, agent="llm",
                          backend="offline", executor="serial", store=False)
    assert report.built == 2 and report.model_errors == {"ProviderError": 1}
    assert "1 ended unfinished on a model error (ProviderError 1" in str(report)
    folder = next((tmp_path / "c" / "signal").glob("p3*_T-15"))
    failed = json.loads((folder / "summary.json").read_text())
    assert failed["completed"] is False and "timed out" in failed["error"]
    kinds = [e.event_type for e in read_trajectory(folder).events]
    assert kinds[-1] == "session_end" and kinds.count("iteration_start") == kinds.count("iteration_end")

    monkeypatch.setattr(OfflineBackend, "agent_step", step)  # the server answers again
    again = build_corpus(tmp_path / "c", profiles=["p3"], tasks=["T-09", "T-15"], progress=False, agent="llm",
                         backend="offline", executor="serial", store=False)
    assert (again.built, again.skipped, again.model_errors) == (1, 1, {})
    assert "error" not in json.loads((folder / "summary.json").read_text())
