"""Interactive explorers as anywidget widgets: the same object works in JupyterLab and in marimo.

    from filegram_kit.widgets import ItemBrowser, TimelineBrowser
    TimelineBrowser(trajs)                  # JupyterLab / Jupyter notebook: the cell's output
    mo.ui.anywidget(TimelineBrowser(trajs)) # marimo

In a Jupyter kernel, importing this package (and making an explorer) keeps the kernel's display and comms its own
even where marimo lays out something (jupyter_kernel.py).

Each widget's view is plain JavaScript and CSS shipped beside its module (`timeline.js`, `items.js`):
no CDN, nothing downloaded. What they show is computed in Python by pure functions exported here too.
"""

from .items import ItemBrowser, answers_by_question, filter_items, filter_options, item_record
from .jupyter_kernel import restore_jupyter_kernel
from .jupyter_outputs import serve_jupyter
from .timeline import TimelineBrowser, content_preview, event_detail, row_order, timeline_events, trajectory_choices

serve_jupyter()  # a Jupyter kernel keeps its display and comms, and shows marimo's outputs (jupyter_outputs.py)

__all__ = ["ItemBrowser", "TimelineBrowser", "answers_by_question", "content_preview", "event_detail",
           "filter_items", "filter_options", "item_record", "restore_jupyter_kernel", "row_order", "serve_jupyter",
           "timeline_events", "trajectory_choices"]
