"""Drift an intruder cannot hide in: prequential scoring reads only the past and learns only from what it accepts;
intruder runs spliced into a user's stream; the command-level model."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from filegram_kit.behaviour.drift import drift
from filegram_kit.behaviour.habit import START
from filegram_kit.behaviour.intruder_runs import intruder_streams, runs_table, shuffled_labels, stream_scores
from filegram_kit.behaviour.masquerade import identification, stream_blocks
from filegram_kit.behaviour.past_drift import past_scores

from .test_habit import _stream, _trajectories

CYCLES = {"a": ["ls", "vi", "make"], "b": ["cd", "cat", "rm"], "c": ["elm", "ls", "latex"], "d": ["ps", "kill", "top"]}


def _session(rng, cycle, n=60):
    return [START, *_stream(rng, cycle, n)]


def test_past_scores_never_read_a_later_session():
    rng = np.random.default_rng(0)
    sessions = [_session(rng, CYCLES["a"]) for _ in range(9)] + [_session(rng, CYCLES["b"])]
    before = past_scores(sessions[:-1], warmup=4)
    after = past_scores(sessions, warmup=4)  # one more session at the end
    assert after[:-1] == before
    assert [s.deviation is None for s in after] == [True] * 4 + [False] * 6
    assert after[-1].flagged and not after[-1].accepted  # another user's habit, after the warm-up


def test_updating_skips_a_flagged_session():
    rng = np.random.default_rng(1)
    own = [_session(rng, CYCLES["a"]) for _ in range(8)]
    intruder = _session(rng, CYCLES["c"])
    scored = past_scores([*own[:6], intruder, *own[6:]], warmup=4)
    assert scored[6].flagged and not scored[6].accepted
    without = past_scores(own, warmup=4)
    assert [s.deviation for s in scored[7:]] == [s.deviation for s in without[6:]]  # it taught the model nothing
    with pytest.raises(ValueError, match="warmup must be >= 2"):
        past_scores(own, warmup=1)


def test_drift_past_flags_a_run_that_others_lets_hide(tmp_path):
    rng = np.random.default_rng(5)
    own = _stream(rng, ["cd", "ls", "cat", "vi", "make"], 2000)
    run = _stream(rng, ["elm", "latex", "rm"], 800)  # an intruder who stays 8 blocks
    trajs = _trajectories(tmp_path, "alice", own[:1200] + run + own[1200:], 100)
    intruder = {f"alice_b{k:04d}" for k in range(12, 20)}
    past = drift(trajs, detector="habit", reference="past", judge=False)
    others = drift(trajs, detector="habit", judge=False)
    assert set(past.filter(pl.col("flagged"))["trajectory_id"]) >= intruder
    hidden = intruder - set(others.filter(pl.col("flagged"))["trajectory_id"])
    assert len(hidden) >= len(intruder) // 2  # against the other sessions, the run vouches for itself
    assert past.sort("trajectory_id")["deviation"].head(5).is_null().all()  # the warm-up is not scored
    shorter = drift(trajs[:-3], detector="habit", reference="past", judge=False)  # the last sessions not yet there
    assert past.filter(pl.col("trajectory_id").is_in(shorter["trajectory_id"].implode())).equals(shorter)
    assert drift(trajs, detector="habit", reference="past", warmup=8, judge=False)["deviation"].null_count() == 8
    with pytest.raises(ValueError, match="habit model's"):
        drift(trajs, reference="past")
    with pytest.raises(ValueError, match="reference must be one of"):
        drift(trajs, detector="habit", reference="future")


@pytest.fixture(scope="module")
def blocks(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    rng = np.random.default_rng(3)
    return stream_blocks({u: _trajectories(tmp, u, _stream(rng, c, 3000), 50) for u, c in CYCLES.items()})


def test_each_other_user_is_spliced_in_as_one_contiguous_run(blocks):
    streams = intruder_streams(blocks, train=1000, seed=4, run_lengths=(2, 5))
    assert [s.target for s in streams] == sorted(CYCLES) and intruder_streams(blocks, train=1000, seed=4,
                                                                              run_lengths=(2, 5)) == streams
    for s in streams:
        typed = [b.user for b in s.later]
        own = [b for b in s.later if b.user == s.target]
        assert own == [b for b in blocks[s.target] if b.start >= 1000]  # the target's blocks, in order
        for other in set(CYCLES) - {s.target}:
            where = [k for k, u in enumerate(typed) if u == other]
            assert 2 <= len(where) <= 5 and where == list(range(where[0], where[0] + len(where)))
            assert [b.start for b in s.later if b.user == other] == [1000 + 50 * k for k in range(len(where))]
    with pytest.raises(ValueError, match="run_lengths"):
        intruder_streams(blocks, train=1000, run_lengths=(0, 3))


def test_runs_table_past_catches_runs_and_the_shuffled_control_is_chance(blocks):
    table = runs_table(blocks, train=1000, seed=0, run_lengths=(5, 10))
    by = {(r["detector"], r["reference"]): r for r in table.iter_rows(named=True)}
    markov_past, markov_others = by[("habit Markov", "past")], by[("habit Markov", "others")]
    assert markov_past["masquerade_auc"] >= 0.95 and markov_past["absorbed"] <= 0.05
    assert markov_past["masquerade_auc"] >= markov_others["masquerade_auc"]
    assert by[("habit Markov", "others")]["absorbed"] is None and by[("17-D fingerprint", "past")]["absorbed"] is None
    assert all(abs(r["shuffled_auc"] - 0.5) < 0.15 for r in by.values())
    assert set(table["runs"]) == {4 * 3} and set(table["users"]) == {4}
    scores = stream_scores(blocks, intruder_streams(blocks, train=1000), train=1000, detector="command", order=0)
    assert shuffled_labels(scores)["masquerade"].sum() == scores["masquerade"].sum()


def test_the_command_model_reads_command_names(blocks):
    assert identification(blocks, train=1000, detector="command", order=0) >= 0.95
    assert blocks["a"][0].sequence("command")[1:4] != blocks["b"][0].sequence("command")[1:4]


def test_cli_imports_a_command_stream_and_scores_it_against_the_past(tmp_path, capsys):
    from filegram_kit.cli import main

    rng = np.random.default_rng(5)
    own = _stream(rng, ["cd", "ls", "cat", "vi", "make"], 2000)
    (tmp_path / "history").write_text("\n".join(own[:1200] + _stream(rng, ["elm", "latex", "rm"], 300) + own[1200:])
                                      + "\n", encoding="utf-8")
    assert main(["import", "commands", str(tmp_path / "history"), "--user", "alice", "--block", "100", "--out",
                 str(tmp_path / "traces")]) == 0
    capsys.readouterr()
    assert main(["drift", str(tmp_path / "traces"), "--detector", "habit", "--reference", "past", "--flagged",
                 "--format", "csv"]) == 0
    flagged = pl.read_csv(capsys.readouterr().out.encode())["trajectory_id"].to_list()
    assert {"alice_b0012", "alice_b0013", "alice_b0014"} <= set(flagged)
    with pytest.raises(SystemExit, match="--warmup"):
        main(["drift", str(tmp_path / "traces"), "--warmup", "3"])


def test_the_stream_figure_draws_both_references_and_marks_exactly_the_intruders(blocks):
    from filegram_kit.report.intruder_views import stream_figure

    stream = intruder_streams(blocks, train=1000, seed=1)[0]
    figure = stream_figure(blocks, stream, train=1000)
    lines = [t for t in figure.data if t.mode == "lines"]
    marks = [t for t in figure.data if t.mode == "markers"]
    assert [t.name for t in lines] == ["others", "past"] and len(lines[0].x) == len(stream.later)
    intruders = [k for k, b in enumerate(stream.later) if b.user != stream.target]
    assert all(list(t.x) == intruders for t in marks)
