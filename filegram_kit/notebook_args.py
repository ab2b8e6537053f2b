"""What a notebook was asked to do, the same way under marimo and in a Jupyter kernel.

marimo notebooks take arguments on the command line (`python notebooks/05_benchmark.py -- --smoke`,
`marimo edit notebooks/ -- --backend gemini`) and read them with `mo.cli_args()`. A notebook exported to
`.ipynb` (`make ipynb`) runs in a Jupyter kernel, where there is no marimo runtime: `mo.cli_args()` raises
there, and a *Run* button has no runtime to run its cells. So the notebooks ask this module:

- `cli_args()`: marimo's arguments, or `{}` where there is no marimo runtime;
- `smoke_mode()`: `--smoke` on the command line, or `FILEGRAM_SMOKE=1` in the environment (how a Jupyter
  kernel, `make ipynb` users and the nbclient test ask for the small run);
- `autorun_mode()`: run the expensive cells without waiting for a button: in smoke mode, as a script, and
  wherever no marimo runtime is there to press a button in (a Jupyter kernel, where *Run all* is the button);
  only marimo's editor (`marimo edit`) and app mode (`marimo run`) wait for the buttons;
- `project_dir()`: the checkout's root (where `figures/` and `data/` are). A kernel has no `__file__`, and an
  exported notebook sits in `build/ipynb/`, so paths relative to the notebook's file break there;
- `serve_jupyter_kernel()`, run when this module is imported: in a Jupyter kernel, marimo's controls, tables and
  figures are shown as Jupyter outputs and a changed control re-runs the cells reading it
  (widgets/jupyter_outputs.py); elsewhere it imports and changes nothing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SMOKE_ENV = "FILEGRAM_SMOKE"
_FALSE = {"", "0", "false", "no", "off"}


def marimo_mode() -> str | None:
    """marimo's run mode ("edit", "run", "script", "test"), or None outside a marimo runtime (e.g. Jupyter)."""
    import marimo as mo

    return mo.app_meta().mode


def cli_args() -> dict[str, object]:
    """The notebook's command-line arguments (`mo.cli_args()`), or {} where marimo has no runtime context."""
    import marimo as mo
    from marimo._runtime.context.types import ContextNotInitializedError

    try:
        return dict(mo.cli_args())
    except ContextNotInitializedError:  # a Jupyter kernel, a plain import, a test calling a cell's function
        return {}


def smoke_mode() -> bool:
    """The small, fast run: `-- --smoke` on the command line, or FILEGRAM_SMOKE set to anything but 0/false/no."""
    return "smoke" in cli_args() or os.environ.get(SMOKE_ENV, "").strip().lower() not in _FALSE


def autorun_mode() -> bool:
    """Run gated cells without their button: in smoke mode, and wherever nobody can press one (a script run,
    a Jupyter kernel or another place with no marimo runtime); only marimo's editor and app wait for it."""
    return smoke_mode() or marimo_mode() not in ("edit", "run")


def project_dir() -> Path:
    """The checkout this package lives in (an editable install: the folder with pyproject.toml), else the
    working directory; the same wherever the notebook runs (marimo, a Jupyter kernel, an exported copy)."""
    root = Path(__file__).resolve().parents[1]
    return root if (root / "pyproject.toml").is_file() else Path.cwd()


def serve_jupyter_kernel() -> bool:
    """In a Jupyter kernel, show marimo's outputs with Jupyter's own means (widgets/jupyter_outputs.py):
    controls as ipywidgets, tables as tables, figures offline. Elsewhere nothing is imported or changed."""
    if "ipykernel" not in sys.modules:  # a script or marimo's own runtime: no kernel to serve
        return False
    from .widgets.jupyter_outputs import serve_jupyter

    return serve_jupyter()


serve_jupyter_kernel()  # every notebook imports this module in its setup cell, marimo imported before it
