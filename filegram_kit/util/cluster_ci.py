"""The fewest clusters (personas, users) a cluster-bootstrap interval is reported from.

A persona-clustered bootstrap draws personas with replacement. From 2 personas a replicate can only be
one of three mixtures, so the percentile interval is made of a handful of values; an interval such as
"35.0 [35.0, 35.0]" then reads as certainty when it is the opposite. Below `MIN_CLUSTERS` the library
returns no bounds and the tables print the estimate with `NO_CI_NOTE` instead.
"""

from __future__ import annotations

MIN_CLUSTERS = 5
NO_CI_NOTE = f"CI needs ≥{MIN_CLUSTERS} personas"


def enough_clusters(n: int) -> bool:
    """Whether `n` clusters are enough for the bootstrap's interval to be reported."""
    return n >= MIN_CLUSTERS


def with_no_ci_note(text: str) -> str:
    """An estimate's text marked as having no interval because there are too few personas."""
    return f"{text} ({NO_CI_NOTE})"
