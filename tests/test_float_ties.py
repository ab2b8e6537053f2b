"""float_ties: decisions on floats that differ only in their last bits come out the same."""

from __future__ import annotations

import numpy as np
import pytest

from filegram_kit.util.float_ties import TOLERANCE, first_best, ranked, snap, tied_ranks, top_indices


def _jitter(values: np.ndarray, seed: int, scale: float = 1e-12) -> np.ndarray:
    """values * (1 + e), e uniform in +-scale: the last-bit differences of another machine, much magnified."""
    return values * (1.0 + np.random.default_rng(seed).uniform(-scale, scale, values.shape))


def test_values_equal_in_exact_arithmetic_decide_alike_under_noise():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(200, 6)).round(3)  # many exact ties, as options with the same evidence have
    base[:, 3] = base[:, 1]
    for seed in range(5):
        noisy = _jitter(base, seed)
        for row, plain in zip(noisy, base, strict=True):
            assert top_indices(row) == top_indices(plain)
            assert first_best(row) == first_best(plain)
            assert ranked(row).tolist() == ranked(plain).tolist()
            assert ranked(row, descending=False).tolist() == ranked(plain, descending=False).tolist()
    # without snapping, the same noise does flip these decisions (the test can fail)
    flips = sum(int(np.argmax(_jitter(row, 1))) != int(np.argmax(row)) for row in base)
    assert flips > 0


def test_ties_go_to_the_lowest_index_and_real_differences_are_kept():
    assert top_indices([0.5, 0.7, 0.7 + 1e-13, 0.1]) == [1, 2]
    assert first_best([0.5, 0.7 + 1e-13, 0.7]) == 1
    assert top_indices([0.5, 0.7, 0.7 + 1e-6]) == [2]  # far above float noise: a real difference
    assert ranked([1.0, 3.0, 3.0, 2.0]).tolist() == [1, 2, 3, 0]
    assert ranked([1.0, 3.0, 3.0, 2.0], descending=False).tolist() == [0, 3, 1, 2]


def test_snap_is_relative_to_size_and_keeps_non_finite_values():
    big = 1e6
    out = snap([big, big * (1 + TOLERANCE / 10), big * (1 + 10 * TOLERANCE)])
    assert out[0] == out[1] != out[2]
    small = snap([1e-12, 2e-12])  # below 1, the tolerance is absolute: both are zero to a reader
    assert small[0] == small[1]
    kept = snap([np.nan, np.inf, -np.inf, 0.5, 0.5 + 1e-13])
    assert np.isnan(kept[0]) and kept[1] == np.inf and kept[2] == -np.inf and kept[3] == kept[4]


def test_snap_keeps_shape_and_order_and_does_not_change_its_input():
    values = np.array([[3.0, 1.0 + 1e-12], [1.0, 2.0]])
    before = values.copy()
    out = snap(values)
    assert out.shape == (2, 2) and out[0, 1] == out[1, 0] == 1.0
    assert np.array_equal(values, before)
    assert (np.diff(out.ravel()[np.argsort(values.ravel())]) >= 0).all()  # snapping never reorders values
    assert snap([]).shape == (0,) and top_indices([]) == []


@pytest.mark.parametrize("n", [2, 50])
def test_snap_is_idempotent(n):
    values = _jitter(np.repeat(np.linspace(0, 1, n), 3), 3)
    once = snap(values)
    assert np.array_equal(snap(once), once)


def test_tied_values_share_their_mean_rank_whatever_the_order_they_come_in():
    assert tied_ranks([1.0, 5.0, 5.0, 9.0]).tolist() == [0.0, 1.5, 1.5, 3.0]
    assert tied_ranks([5.0, 5.0 + 1e-13, 1.0]).tolist() == [1.5, 1.5, 0.0]
    rng = np.random.default_rng(4)
    values = rng.integers(0, 4, 12).astype(float)
    for _ in range(5):
        order = rng.permutation(len(values))
        assert tied_ranks(values[order]).tolist() == tied_ranks(values)[order].tolist()
    assert tied_ranks([2.0, 7.0, 3.0]).tolist() == [0.0, 2.0, 1.0]  # no ties: argsort().argsort()
