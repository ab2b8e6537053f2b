"""A Jupyter kernel keeps its display, its comms and its widgets, whatever marimo's layout did to it.

The notebooks are marimo notebooks; exported to .ipynb they run in a Jupyter kernel, and the first time marimo
formats a rich object there (`mo.vstack([... a polars frame])`, `mo.ui.table`) it registers its formatters for
the whole kernel, as it does in its own runtime: `IPython.display.display` then sends output to marimo (none
reaches JupyterLab: every later `display(...)` is an empty output), `comm.create_comm` becomes marimo's provider
and ipywidgets' widget-constructed hook gives every new widget a comm to marimo's front end ("Error displaying
widget: model not found").

    restore_jupyter_kernel()   # in a Jupyter kernel: marimo's formatters registered, the kernel's hooks kept

Where marimo is imported, it registers marimo's formatters itself (so a later layout finds them and patches
nothing); it puts the kernel's own display, comm factory and widget hook back. `filegram_kit.widgets` calls it
when imported and every explorer when it is made; inside marimo's runtime and outside any kernel (a script) it
changes nothing. marimo's plotly, matplotlib and tqdm formatters switch renderers and backends only inside its
runtime (marimo 0.25), so there is nothing of theirs to put back; how marimo's outputs then show in the kernel is
jupyter_outputs.py's work.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


def in_jupyter_kernel() -> bool:
    """Whether this code runs in a Jupyter (ipykernel) kernel and not in marimo's runtime."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return False
    if "marimo" not in sys.modules:  # not imported: not marimo's runtime either (and not imported here)
        return True
    from marimo import running_in_notebook

    return not running_in_notebook()


def _marimos(hook: Any) -> bool:
    """Whether marimo defined `hook` (its display patch is `functools.wraps`ed: its __module__ is IPython's)."""
    code = getattr(hook, "__code__", None)
    where = Path(code.co_filename).parts if code is not None else ()
    return getattr(hook, "__module__", "").startswith("marimo") or "marimo" in where


def _kernel_comm(*args: Any, **kwargs: Any) -> Any:
    """What ipykernel's own `comm.create_comm` makes: a comm published on the kernel's iopub channel."""
    from ipykernel.comm.comm import BaseComm

    return BaseComm(*args, **kwargs)


def _ipython_display() -> tuple[Any, Any]:
    """IPython's own display and update_display (marimo's patch wraps the first: `__wrapped__`)."""
    from IPython.core import display_functions

    display = display_functions.display
    while _marimos(display) and hasattr(display, "__wrapped__"):
        display = display.__wrapped__
    update = display_functions.update_display
    if _marimos(update):
        def update(obj: Any, *, display_id: str, **kwargs: Any) -> None:  # IPython's own definition
            kwargs["update"] = True
            display(obj, display_id=display_id, **kwargs)
    return display, update


def taken_over() -> bool:
    """Whether marimo holds the kernel's display, comm factory or widget hook (in a Jupyter kernel)."""
    import comm
    from IPython.core import display_functions
    from ipywidgets import Widget

    return in_jupyter_kernel() and any(_marimos(hook) for hook in (
        display_functions.display, comm.create_comm, Widget._widget_construction_callback))


def _register_marimo_formatters() -> None:
    """marimo registers its formatters the first time it formats outside its runtime, and only while none are
    registered: doing it now means its later layouts patch nothing. Only where marimo is imported already (the
    exported notebooks): a kernel that never uses marimo is left as it is."""
    if "marimo" not in sys.modules:
        return
    try:
        from marimo._output.formatters.formatters import register_formatters
        from marimo._output.formatting import FORMATTERS
    except ImportError:  # another marimo layout: the hooks are still put back below, on every call
        return
    if FORMATTERS.is_empty():
        register_formatters()


def restore_jupyter_kernel() -> bool:
    """In a Jupyter kernel: register marimo's formatters, then give the kernel back its display, comm factory and
    widget hook. Returns whether anything had to be put back."""
    if not in_jupyter_kernel():
        return False
    _register_marimo_formatters()
    if not taken_over():
        return False
    import comm
    import IPython.display
    from IPython.core import display_functions
    from ipywidgets import Widget

    display, update = _ipython_display()
    for module in (display_functions, IPython.display):
        module.display, module.update_display = display, update
    if _marimos(comm.create_comm):
        comm.create_comm = _kernel_comm
    if _marimos(Widget._widget_construction_callback):
        Widget.on_widget_constructed(None)
    return True
