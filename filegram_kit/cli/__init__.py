"""The `filegram` command line: one module per group of commands."""

from .commands import main

__all__ = ["main"]
