"""Paper tables and figures, one registered function each, written by `filegram reproduce`."""

from . import tables  # noqa: F401  (registers the tables)
from .registry import ARTIFACTS, Artifact, to_markdown
from .reproduce import reproduce

__all__ = ["ARTIFACTS", "Artifact", "reproduce", "to_markdown"]
