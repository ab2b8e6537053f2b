"""Drift alarms at a false-alarm rate the user asks for: the conformal threshold keeps the rate on exchangeable
data, refuses a rate the past cannot support, borrows while the past is short, and the habit model is chosen."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from filegram_kit.behaviour.alarm_calibration import _row, pu_calibration
from filegram_kit.behaviour.drift import drift
from filegram_kit.behaviour.habit import START, habit_kind
from filegram_kit.behaviour.masquerade import stream_blocks
from filegram_kit.behaviour.past_drift import conformal_threshold, not_self, past_scores, scaled_reference
from filegram_kit.cli import main
from filegram_kit.traces.load import load_trajectories

from .test_habit import _stream, _trajectories
from .test_intruder_runs import CYCLES


def _session(rng, cycle, n=60):
    return [START, *_stream(rng, cycle, n)]


@pytest.mark.parametrize(("n", "rate"), [(39, 0.05), (19, 0.05), (199, 0.01), (60, 0.1)])
def test_the_conformal_threshold_flags_exchangeable_draws_at_no_more_than_the_rate(n, rate):
    """A reference and a new value drawn alike (skewed: lognormal): flagged at most `rate` of the time, and, where
    (n + 1) * rate is a whole number, at the rate itself."""
    rng = np.random.default_rng(n)
    draws = rng.lognormal(0, 1.5, size=(20_000, n + 1))
    flagged = np.mean([row[-1] > conformal_threshold(row[:-1], rate) for row in draws])
    exact = np.floor((n + 1) * rate + 1e-9) / (n + 1)
    assert flagged == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / len(draws)))
    assert flagged <= rate + 4 * np.sqrt(rate * (1 - rate) / len(draws))


def test_a_reference_too_short_for_the_rate_promises_nothing():
    assert conformal_threshold(list(range(18)), 0.05) is None  # 18 + 1 < 1 / 0.05
    assert conformal_threshold(list(range(19)), 0.05) == 18  # 19 suffice
    assert conformal_threshold(list(range(249)), 0.172) == 206  # the 207th: 250 * 0.828 is 207.00000000000003
    assert conformal_threshold(list(range(98)), 0.01) is None
    with pytest.raises(ValueError, match="false_alarm must be a rate"):
        past_scores([[START, "a"]] * 6, warmup=5, false_alarm=1.5)


def test_a_short_past_borrows_then_stands_on_its_own_and_alone_flags_nothing():
    rng = np.random.default_rng(3)
    own = [_session(rng, CYCLES["a"]) for _ in range(40)]
    others = [scaled_reference([float(v) for v in rng.lognormal(0, 0.3, 15)]) for _ in range(7)]
    lent = [d for ref in others for d in ref]
    scored = past_scores(own, warmup=5, false_alarm=0.05, borrowed=lent)[5:]
    assert [s.borrowed for s in scored[:14]] == [True] * 14  # 5 .. 18 own references: under 19
    assert not any(s.borrowed for s in scored[14:])  # from 19 on, its own past supports 5%
    assert all(s.threshold is not None for s in scored)
    alone = past_scores(own, warmup=5, false_alarm=0.05)[5:]
    assert all(s.threshold is None and not s.flagged for s in alone[:14])  # nothing to borrow: no guess
    assert all(s.threshold is not None for s in alone[14:])


def test_an_intruder_is_flagged_at_the_rate_asked_and_flagged_sessions_go_back_into_the_reference():
    rng = np.random.default_rng(4)
    own = [_session(rng, CYCLES["a"]) for _ in range(40)]
    intruders = [_session(rng, CYCLES["d"]) for _ in range(3)]
    scored = past_scores([*own[:30], *intruders, *own[30:]], warmup=5, false_alarm=0.05)
    assert all(s.flagged and not s.accepted for s in scored[30:33])
    # after 25 accepted later sessions, round(0.05 / 0.95 * 25) = 1 flagged session is put back in the reference
    assert scored[33].reference == len([s for s in scored[:33] if s.accepted]) + 1


def test_drift_names_its_model_and_rule_and_naive_bayes_reads_command_names_only(tmp_path):
    rng = np.random.default_rng(5)
    trajs = _trajectories(tmp_path, "alice", _stream(rng, ["cd", "ls", "cat", "vi", "make"], 3000), 100)
    frame = drift(trajs, detector="habit", reference="past", false_alarm=0.05, model="naive_bayes", judge=False)
    assert set(frame["model"]) == {"naive_bayes(alpha=0.01)"} and set(frame["rule"]) == {"false_alarm=0.05"}
    assert frame["borrowed"].drop_nulls().sum() == 0  # one user: nothing to borrow
    assert frame.filter(pl.col("deviation").is_not_null())["reference_sessions"].min() == 5
    assert set(drift(trajs, judge=False)["model"]) == {"fingerprint"}
    smoother = drift(trajs, detector="habit", model="naive_bayes", alpha=1.0, judge=False)
    assert set(smoother["model"]) == {"naive_bayes(alpha=1)"}
    kind = habit_kind("naive_bayes")
    assert kind.sequence(trajs[0]) == [START, *(e.get("tool_name") for e in trajs[0].events
                                                if e.event_type == "tool_call")]
    assert habit_kind("markov").sequence(trajs[0]) != kind.sequence(trajs[0])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"detector": "habit", "reference": "past", "tau": 1.0, "false_alarm": 0.01}, "not both"),
    ({"detector": "habit", "false_alarm": 0.01}, "reference='past'"),
    ({"detector": "both", "reference": "past", "false_alarm": 0.01}, "detector='habit'"),
    ({"model": "markov"}, "choose the habit model"),
    ({"detector": "habit", "model": "markov", "alpha": 0.1}, "naive Bayes' additive smoothing"),
    ({"detector": "habit", "model": "bayes"}, "model must be one of"),
])
def test_drift_refuses_rules_that_do_not_go_together(tmp_path, kwargs, message):
    trajs = _trajectories(tmp_path, "alice", ["ls", "vi"] * 400, 100)
    with pytest.raises(ValueError, match=message):
        drift(trajs, judge=False, **kwargs)


def test_cli_asks_for_a_false_alarm_rate(tmp_path, capsys):
    rng = np.random.default_rng(6)
    history = tmp_path / "history"
    history.write_text("\n".join(_stream(rng, ["cd", "ls", "vi"], 3000)) + "\n", encoding="utf-8")
    assert main(["import", "commands", str(history), "--user", "alice", "--block", "100", "--out",
                 str(tmp_path / "traces")]) == 0
    capsys.readouterr()
    assert main(["drift", str(tmp_path / "traces"), "--detector", "habit", "--reference", "past", "--false-alarm",
                 "0.05", "--model", "multinomial", "--format", "csv"]) == 0
    out = pl.read_csv(capsys.readouterr().out.encode())
    assert set(out["rule"]) == {"false_alarm=0.05"} and set(out["model"]) == {"multinomial"}
    with pytest.raises(SystemExit, match="--detector habit --reference past"):
        main(["drift", str(tmp_path / "traces"), "--false-alarm", "0.01"])
    with pytest.raises(SystemExit):  # argparse: one rule or the other
        main(["drift", str(tmp_path / "traces"), "--tau", "2", "--false-alarm", "0.01"])
    assert set(out["score"]) == {"one_class"}  # one user: nobody to set the sessions against
    with pytest.raises(SystemExit, match="one user"):
        main(["drift", str(tmp_path / "traces"), "--detector", "habit", "--reference", "past", "--score",
              "two_class"])
    with pytest.raises(SystemExit, match="add --reference past"):
        main(["drift", str(tmp_path / "traces"), "--detector", "habit", "--score", "one_class"])


def test_a_calibration_row_pools_users_and_keeps_normal_and_anomalous_apart():
    outcomes = ([("a", False, True, True, False)] + [("a", False, False, True, False)] * 9
                + [("b", False, False, False, False)] * 10 + [("b", True, True, True, False)] * 3
                + [("b", True, False, False, True)])
    row = _row("test", habit_kind("markov"), "one_class", 0.1, outcomes)
    assert (row["realised"], row["normal"], row["hits"], row["anomalous"]) == (0.05, 20, 0.75, 4)
    assert row["ratio"] == pytest.approx(0.5) and row["kept"]
    assert row["borrowed"] == 0.5 and row["unsupported"] == 0  # both counted over normal sessions only
    assert (row["worst_user"], row["worst_user_realised"]) == ("a", 0.1)  # a: 1 of 10; b: 0 of 10
    assert row["feedback"] is False and _row("test", habit_kind("markov"), "one_class", 0.1, outcomes,
                                             feedback=True)["feedback"] is True
    assert not _row("test", habit_kind("markov"), "one_class", 0.2, outcomes)["kept"]  # 0.25x


def test_pu_calibration_scores_every_later_block_once(tmp_path):
    rng = np.random.default_rng(8)
    trajs = {u: _trajectories(tmp_path, u, _stream(rng, cycle, 2500), 100) for u, cycle in CYCLES.items()}
    blocks = stream_blocks(trajs)
    table = pu_calibration(blocks, train=1500, rates=(0.05,), models=("markov",))
    later = sum(len(bs) for bs in blocks.values()) - sum(1500 // 100 for _ in blocks)
    row = table.row(0, named=True)
    assert row["normal"] == later and row["users"] == 4
    assert row["hits"] > row["realised"]  # four users of different habits: intruders stand out


def test_two_class_reads_a_session_against_the_other_users_too():
    """Self against not-self: a session in the background's habit is more like the others than like the user
    (positive), the user's own habit is the reverse (negative), a habit nobody has lies between."""
    rng = np.random.default_rng(9)
    own = [_session(rng, CYCLES["a"]) for _ in range(12)]
    others = [_session(rng, CYCLES["b"]) for _ in range(10)]
    probes = [_session(rng, CYCLES["a"]), _session(rng, CYCLES["b"]), _session(rng, CYCLES["d"])]
    two = past_scores([*own, *probes], warmup=12, tau=100, background=others)[12:]
    assert two[0].deviation < two[2].deviation < two[1].deviation
    assert two[0].deviation < 0 < two[1].deviation


def test_the_background_is_the_other_users_warmups_and_can_leave_an_intruder_out():
    sequences = {"a": [["a1"], ["a2"], ["a3"]], "b": [["b1"], ["b2"], ["b3"]], "c": [["c1"], ["c2"]]}
    assert not_self(sequences, "a", 2) == [["b1"], ["b2"], ["c1"], ["c2"]]
    assert not_self(sequences, "a", 2, leave_out=["c"]) == [["b1"], ["b2"]]


def test_drift_reads_two_class_with_a_false_alarm_rate_and_several_users(tmp_path):
    rng = np.random.default_rng(10)
    alice = _trajectories(tmp_path, "alice", _stream(rng, CYCLES["a"], 2500), 100)
    bob = _trajectories(tmp_path, "bob", _stream(rng, CYCLES["b"], 2500), 100)
    both = drift([*alice, *bob], detector="habit", reference="past", false_alarm=0.05, judge=False)
    assert set(both["score"]) == {"two_class"}
    one = drift([*alice, *bob], detector="habit", reference="past", false_alarm=0.05, judge=False,
                score="one_class")
    assert set(one["score"]) == {"one_class"}
    scored = both.filter(pl.col("deviation").is_not_null())
    assert (scored["deviation"] < 0).all()  # every session more like its own user than like the other one
    assert not scored["deviation"].equals(one.filter(pl.col("deviation").is_not_null())["deviation"])
    assert set(drift(alice, detector="habit", reference="past", false_alarm=0.05, judge=False)["score"]) == {
        "one_class"}  # one user: nobody to set it against
    with pytest.raises(ValueError, match="one user"):
        drift(alice, detector="habit", reference="past", score="two_class", judge=False)
    with pytest.raises(ValueError, match="score chooses how reference='past'"):
        drift(alice, detector="habit", score="two_class", judge=False)


def test_an_intruder_left_out_of_the_background_is_harder_to_catch(tmp_path):
    """hits_unknown leaves each intruder out of the background: an intruder close to the target (every other
    "make" a "cat") is caught by two-class best while the background holds him."""
    rng = np.random.default_rng(11)
    cycles = {"t": ["ls", "vi", "make"], "x": ["ls", "vi", "make", "ls", "vi", "cat"], "y": ["cd", "rm", "top"],
              "z": ["elm", "ps", "kill"]}
    trajs = {u: _trajectories(tmp_path, u, _stream(rng, cycle, 4000), 100) for u, cycle in cycles.items()}
    table = pu_calibration(stream_blocks(trajs), train=1500, rates=(0.05,), models=("markov",))
    one, two = (table.filter(pl.col("score") == s).row(0, named=True) for s in ("one_class", "two_class"))
    assert one["hits_unknown"] == one["hits"] and one["realised_unknown"] == one["realised"]
    assert two["hits_unknown"] < two["hits"] - 0.1


def test_on_real_users_two_class_alarms_keep_the_rate_asked_and_catch_intruders():
    """Issue 53's promise on PU (8 real users, intruder runs, seed 0): at 1% and 5% every model's realised
    false-alarm rate lies within [0.5x, 2x] of the rate asked, and the best catches >= 70% of intruder blocks at
    1%. Measured, not tuned for: docs/real-users.md lists what was tried on this data."""
    from filegram_kit.report.real_user_tables import PU_TRAIN, _pu_blocks

    table = pu_calibration(_pu_blocks(), train=PU_TRAIN, rates=(0.01, 0.05), scores=("two_class",), unknown=False)
    assert table.height == 12 and table["kept"].all(), table.select("model", "feedback", "asked", "ratio")
    assert table.filter(~pl.col("feedback") & (pl.col("asked") == 0.01))["hits"].max() >= 0.70
    # with feedback the promise also holds per user at 5%: no user's own sessions flagged more than twice as often
    worst = table.filter(pl.col("feedback") & (pl.col("asked") == 0.05))["worst_user_realised"]
    assert worst.max() <= 0.10, worst


def test_a_changed_habit_is_flagged_for_good_unless_the_user_confirms_the_alarms():
    """Updating learns only unflagged sessions: after a habit changes, every session is flagged. Confirmed ("that
    was me") alarms are learnt, so the new habit is flagged for a while and then followed."""
    rng = np.random.default_rng(12)
    before = [_session(rng, ["ls", "vi", "make"]) for _ in range(30)]
    after = [_session(rng, ["ls", "vi", "make", "cd", "rm"]) for _ in range(60)]
    sessions = [*before, *after]
    alone = past_scores(sessions, warmup=10, false_alarm=0.05)
    assert sum(s.flagged for s in alone[-30:]) >= 25  # locked out
    reviewed = past_scores(sessions, warmup=10, false_alarm=0.05, confirmed=set(range(len(sessions))))
    assert sum(s.flagged for s in reviewed[-30:]) <= 3
    assert all(s.accepted for s in reviewed)
    denied = past_scores(sessions, warmup=10, false_alarm=0.05, confirmed=set())  # reviewed: none were the user's
    assert sum(s.flagged for s in denied[-30:]) >= 25


def test_drift_learns_confirmed_sessions_and_names_unknown_ones(tmp_path, capsys):
    rng = np.random.default_rng(13)
    history = tmp_path / "history"
    history.write_text("\n".join(_stream(rng, CYCLES["a"], 3000) + _stream(rng, CYCLES["b"], 3000)) + "\n",
                       encoding="utf-8")
    assert main(["import", "commands", str(history), "--user", "alice", "--block", "100", "--out",
                 str(tmp_path / "traces")]) == 0
    trajs = list(load_trajectories(tmp_path / "traces", progress=False))
    ids = [t.id for t in trajs]
    alone = drift(trajs, detector="habit", reference="past", false_alarm=0.05, judge=False)
    confirmed = drift(trajs, detector="habit", reference="past", false_alarm=0.05, judge=False, confirmed=ids)
    assert confirmed["flagged"].sum() < alone["flagged"].sum()
    with pytest.raises(ValueError, match="not among the trajectories read: nobody_b0001"):
        drift(trajs, detector="habit", reference="past", judge=False, confirmed=["nobody_b0001"])
    with pytest.raises(ValueError, match="confirmed sessions are learnt by reference='past'"):
        drift(trajs, detector="habit", judge=False, confirmed=ids)
    listed = tmp_path / "mine.txt"
    listed.write_text("  # sessions I ran\n" + "\n".join(ids) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["drift", str(tmp_path / "traces"), "--detector", "habit", "--reference", "past", "--false-alarm",
                 "0.05", "--confirmed", str(listed), "--format", "csv"]) == 0
    assert pl.read_csv(capsys.readouterr().out.encode())["flagged"].sum() == confirmed["flagged"].sum()
    with pytest.raises(SystemExit, match="--confirmed .*missing.txt"):
        main(["drift", str(tmp_path / "traces"), "--detector", "habit", "--reference", "past", "--confirmed",
              str(tmp_path / "missing.txt")])
