"""The habit model: a planted habit is found, a spliced block is flagged, and the smoothing is a distribution."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from filegram_kit.behaviour.habit import START, HabitModel, habit_scores, tokens
from filegram_kit.behaviour.masquerade import (
    clustered_auc_ci,
    identification,
    masquerade_scores,
    pu_table,
    stream_blocks,
    user_bootstrap,
)
from filegram_kit.record.commands import import_command_stream
from filegram_kit.traces.schema import Event, Trajectory

VOCAB = ["ls", "vi", "make", "cd", "cat", "rm", "elm", "latex"]


def _stream(rng: np.random.Generator, cycle: list[str], n: int, noise: float = 0.2) -> list[str]:
    """A user who repeats `cycle` in order, and with probability `noise` types any command instead."""
    out, k = [], 0
    for _ in range(n):
        if rng.random() < noise:
            out.append(str(rng.choice(VOCAB)))
        else:
            out.append(cycle[k % len(cycle)])
            k += 1
    return out


def _trajectories(tmp_path: Path, user: str, commands: list[str], block: int) -> list[Trajectory]:
    path = tmp_path / user
    path.write_text("\n".join(commands) + "\n", encoding="utf-8")
    return import_command_stream(path, user=user, block=block).trajectories


def test_tokens_pair_each_action_with_the_tool_call_after_it():
    def event(i, kind, **fields):
        return Event(f"e{i}", kind, float(i), fields=fields)

    traj = Trajectory("t", (event(0, "file_read", file_type=".PDF"), event(1, "tool_call", tool_name="read"),
                            event(2, "context_switch"), event(3, "tool_call", tool_name="bash"),
                            event(4, "file_browse"), event(5, "file_delete", file_path="x")), "u", None)
    assert tokens(traj) == [START, "file_read|read|pdf", "other|bash|-", "file_browse|-|-", "file_delete|-|-"]


def test_witten_bell_probabilities_sum_to_one():
    model = HabitModel(order=1)
    model.update("a", [START, "x", "y", "x", "x", "z"])
    model.update("b", [START, "y", "y", "w"])
    seen = sorted(model.everyone.unigrams)
    for prev in [START, *seen, "never"]:
        for counts in (model.users["a"], model.everyone):
            total = sum(math.exp(model.log_likelihood(counts, [prev, t])) for t in [*seen, "unseen"])
            assert total == pytest.approx(1.0, abs=1e-12)


def test_leaving_a_session_out_equals_fitting_without_it():
    rng = np.random.default_rng(3)
    sessions = [[START, *rng.choice(VOCAB, size=30).tolist()] for _ in range(4)]
    full = HabitModel(order=1)
    for s in sessions:
        full.update("a", s)
    full.update("b", [START, "ls", "ls", "vi"])
    without = HabitModel(order=1)
    for s in sessions[1:]:
        without.update("a", s)
    without.update("b", [START, "ls", "ls", "vi"])
    assert full.llr("a", sessions[0], exclude=sessions[0]) == pytest.approx(without.llr("a", sessions[0]), abs=1e-12)
    with pytest.raises(KeyError, match="no sessions of user 'c'"):
        full.llr("c", sessions[0])


def test_a_planted_order_habit_is_found_by_the_markov_model_only(tmp_path):
    """Two users type the same commands equally often, in a different order: only the order tells them apart."""
    rng = np.random.default_rng(7)
    trajs = {"alice": _trajectories(tmp_path, "alice", _stream(rng, ["ls", "vi", "make"], 3000), 50),
             "bob": _trajectories(tmp_path, "bob", _stream(rng, ["vi", "ls", "make"], 3000), 50)}
    blocks = stream_blocks(trajs)
    markov = identification(blocks, train=1500, detector="habit", order=1)
    assert markov >= 0.95
    assert identification(blocks, train=1500, detector="habit", order=0) <= 0.75  # counts alone: near a coin
    assert identification(blocks, train=1500, detector="fingerprint") <= 0.75


def test_users_of_one_habit_cannot_be_told_apart(tmp_path):
    rng = np.random.default_rng(11)
    trajs = {u: _trajectories(tmp_path, u, _stream(rng, ["ls", "vi", "make"], 2000), 50) for u in ("a", "b", "c")}
    assert identification(stream_blocks(trajs), train=1000, detector="habit") <= 0.6  # chance is 1/3


def test_a_spliced_block_is_the_session_least_like_its_user(tmp_path):
    rng = np.random.default_rng(5)
    own = _stream(rng, ["cd", "ls", "cat", "vi", "make"], 2000)
    spliced = own[:1000] + _stream(rng, ["elm", "latex", "rm"], 100) + own[1000:]
    trajs = _trajectories(tmp_path, "alice", spliced, 100)
    scores = habit_scores(trajs)
    assert scores["habit_llr"].is_null().all()  # one user: there is no one to compare with
    assert scores.sort("habit_ll")["trajectory_id"][0] == "alice_b0010"  # commands 1000-1099: the intruder's
    markov = masquerade_scores(stream_blocks({"alice": trajs}), train=500, test=100, detector="habit")
    assert markov.sort("score", descending=True)["start"][0] == 1000


def test_pu_table_ranks_a_masquerader_above_the_users_own_blocks(tmp_path):
    rng = np.random.default_rng(2)
    cycles = {"a": ["ls", "vi", "make"], "b": ["cd", "cat", "rm"], "c": ["elm", "ls", "latex"]}
    trajs = {u: _trajectories(tmp_path, u, _stream(rng, c, 1500), 50) for u, c in cycles.items()}
    table = pu_table(stream_blocks(trajs), train=1000, test=250)
    habit = table.filter(table["detector"] == "habit Markov")
    assert habit["identification"].min() >= 0.95 and habit["masquerade_auc"].min() >= 0.95
    assert habit["shuffled_identification"].max() <= 0.6  # users permuted in training: near chance (1/3)
    assert (table["identification_lo"] <= table["identification"]).all()
    assert (table["identification"] <= table["identification_hi"]).all()
    assert (table["masquerade_auc_lo"] <= table["masquerade_auc"]).all()
    assert set(table["normal_blocks"]) == {3 * 10} and set(table["masquerade_blocks"]) == {3 * 2 * 5}
    with pytest.raises(ValueError, match="lower `train`"):
        pu_table(stream_blocks(trajs), train=1500)


def test_drift_with_the_habit_detector_flags_the_spliced_block(tmp_path):
    from filegram_kit.behaviour.drift import drift

    rng = np.random.default_rng(5)
    own = _stream(rng, ["cd", "ls", "cat", "vi", "make"], 2000)
    trajs = _trajectories(tmp_path, "alice", own[:1000] + _stream(rng, ["elm", "latex", "rm"], 100) + own[1000:], 100)
    habit = drift(trajs, detector="habit")
    assert habit.filter(habit["flagged"])["trajectory_id"].to_list() == ["alice_b0010"]
    unusual = habit.filter(habit["flagged"])["shifted_features"].to_list()[0]
    assert unusual[0].split("|")[1] in ("elm", "latex", "rm")  # the intruder's commands
    both = drift(trajs, detector="both", judge=False)
    assert both["flagged"].to_list() == (both["habit_flagged"] | drift(trajs, judge=False)["flagged"]).to_list()
    assert set(both.columns) >= {"deviation", "habit_deviation", "habit_threshold", "unusual_actions"}
    with pytest.raises(ValueError, match="detector must be one of"):
        drift(trajs, detector="markov")


def test_filegramos_with_the_habit_detector_names_the_intruders_session_and_commands(tmp_path):
    from filegram_kit.llm import get_backend
    from filegram_kit.memory.filegramos import FileGramOS

    rng = np.random.default_rng(5)
    own = _stream(rng, ["cd", "ls", "cat", "vi", "make"], 1500)
    trajs = _trajectories(tmp_path, "alice", own[:1000] + _stream(rng, ["elm", "latex", "rm"], 100) + own[1000:], 100)
    backend = get_backend("offline")
    memory = FileGramOS(detector="habit").ingest(trajs, backend=backend)
    assert memory.drift_.filter(memory.drift_["flagged"])["trajectory_id"].to_list() == ["alice_b0010"]
    text = memory.retrieve("Which sessions are unusual for this user?", backend=backend).text
    least = text[text.index("Sessions least like"):]
    label = memory.drift_.filter(memory.drift_["trajectory_id"] == "alice_b0010")["session"][0]
    assert least.splitlines()[1].startswith(f"- {label}: rank 1") and "other with elm" in least.splitlines()[1]
    assert memory.params()["detector"] == "habit" and "detector" not in FileGramOS().params()
    with pytest.raises(ValueError, match="detector must be one of"):
        FileGramOS(detector="markov")


def test_the_anomaly_judge_is_asked_only_where_its_labels_are_kept(tmp_path):
    from filegram_kit.llm import get_backend
    from filegram_kit.memory.filegramos import FileGramOS

    class CountingJudge:
        """The offline backend, counting the anomaly judge's calls."""

        def __init__(self):
            self.inner, self.judged = get_backend("offline"), 0

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def judge_anomaly(self, *args, **kwargs):
            self.judged += 1
            return self.inner.judge_anomaly(*args, **kwargs)

    rng = np.random.default_rng(5)
    own = _stream(rng, ["cd", "ls", "cat", "vi", "make"], 1500)
    trajs = _trajectories(tmp_path, "alice", own[:1000] + _stream(rng, ["elm", "latex", "rm"], 100) + own[1000:], 100)
    judged = {}
    for detector in ("fingerprint", "habit", "both"):
        backend = CountingJudge()
        memory = FileGramOS(detector=detector).ingest(trajs, backend=backend)
        judged[detector] = backend.judged
        labelled = memory.drift_["judge"].is_not_null().sum()
        assert backend.judged == labelled  # every verdict asked for is one the memory keeps
    assert judged["fingerprint"] > 0 and judged["both"] == judged["fingerprint"] and judged["habit"] == 0


def test_user_clustered_intervals_see_the_spread_between_users_not_the_block_count():
    same = user_bootstrap(dict.fromkeys("abcdefgh", 90.0), dict.fromkeys("abcdefgh", 100.0))
    assert same == pytest.approx((0.9, 0.9))  # every user alike: no spread to find
    split = user_bootstrap({**dict.fromkeys("abcd", 100.0), **dict.fromkeys("efgh", 0.0)},
                           dict.fromkeys("abcdefgh", 100.0))
    assert split[0] < 0.3 and split[1] > 0.7  # 800 blocks, yet only 8 independent users
    rng = np.random.default_rng(0)
    high, low = rng.normal(1, 1, 50).tolist(), rng.normal(0, 1, 200).tolist()
    alike = clustered_auc_ci(high * 4, [u for u in "abcd" for _ in high], low * 4, [u for u in "abcd" for _ in low])
    exact = np.mean([[h > x for x in low] for h in high])
    assert alike == pytest.approx((exact, exact))  # identical users: every replicate is the pooled AUC
    apart = clustered_auc_ci([5.0, 5.1, 0.0, 0.1], ["a", "a", "b", "b"], [1.0, 1.1, 1.0, 1.1], ["a", "a", "b", "b"])
    assert apart[0] <= 0.25 and apart[1] >= 0.75  # one user separates perfectly, the other not at all


@pytest.mark.parametrize("order", [0, 1])
def test_the_direct_read_of_a_users_counts_gives_the_excluding_reads_numbers_bit_for_bit(order):
    """identify() reads a user's counts directly (log_likelihood with nothing excluded); the general path reads
    them through a view minus an excluded session. With an empty exclusion both must give the same float."""
    from filegram_kit.behaviour.habit import Counts

    rng = np.random.default_rng(3)
    words = ["ls", "cd", "git", "vim", "make", "cat", "grep"]
    model = HabitModel(order=order)
    for user in ("ann", "bob"):
        for _ in range(4):
            model.update(user, [START, *rng.choice(words[: 5 if user == "ann" else 7], size=12)])
    probes = [[START, *rng.choice([*words, "never_seen"], size=n)] for n in (1, 2, 9, 30)]
    for user in ("ann", "bob"):
        for probe in probes:
            direct = model.log_likelihood(model.users[user], probe)
            assert direct == model.log_likelihood(model.users[user], probe, exclude=Counts())
            assert direct != model.log_likelihood(model.users["bob" if user == "ann" else "ann"], probe)
