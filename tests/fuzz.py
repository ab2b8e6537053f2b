"""What the fuzz tests share: 1,000 derandomised examples (the same inputs on every run) and any JSON value."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FUZZ = settings(max_examples=1000, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                      max_leaves=6)
