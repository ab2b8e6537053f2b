"""Write a plotly figure as files that open offline: standalone HTML (plotly.js embedded) and PNG.

PNG export goes through kaleido, which drives a Chromium-family browser already on the machine;
it never downloads one. `find_browser()` looks at `$BROWSER_PATH` (the variable kaleido's
browser launcher, choreographer, honours), then for `chromium`, `chromium-browser`,
`google-chrome` ... on `$PATH`, then in the usual install folders; the path found is handed to
kaleido explicitly. `make setup` installs Debian's `chromium` when none is found
(`python -m filegram_kit.report.export` prints the browser, or exits 1 naming the fix).

PNG bytes are stable for one browser build and font set (`make reproduce` twice gives the same
file); another Chromium version or other fonts can change pixels, so tests check the .csv.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..util import atomic

if TYPE_CHECKING:  # plotly is imported by what makes a figure, not by a run that writes none
    import plotly.graph_objects as go

BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
PNG_SCALE = 2  # device pixels per layout pixel: crisp text in READMEs and slides


class BrowserNotFoundError(RuntimeError):
    """No Chromium-family browser to render PNGs with."""


def find_browser() -> str:
    """Path of the browser kaleido should drive: `$BROWSER_PATH`, else the first of BROWSER_NAMES on PATH."""
    explicit = os.environ.get("BROWSER_PATH")
    if explicit:
        if Path(explicit).is_file() and os.access(explicit, os.X_OK):
            return explicit
        raise BrowserNotFoundError(f"BROWSER_PATH={explicit!r} is not an executable file; point it at chromium "
                                   "or unset it")
    for name in BROWSER_NAMES:
        found = shutil.which(name)
        if found:
            return found
    from choreographer.browsers.chromium import Chromium  # typical install paths (macOS apps, /opt ...)

    found = Chromium.find_browser(skip_local=True)  # skip_local: never a browser kaleido downloaded itself
    if found:
        return found
    raise BrowserNotFoundError(
        "PNG export needs a Chromium-family browser and none was found (looked for "
        f"{', '.join(BROWSER_NAMES)} on PATH and $BROWSER_PATH). Run `make setup` (it installs Debian's chromium "
        "with apt-get when none is there), or `sudo apt-get install -y chromium`, or set BROWSER_PATH to an "
        "installed Chrome/Chromium.")


PLOTLY_JS = "plotly.min.js"


def figure_html(fig: go.Figure, *, div_id: str) -> str:
    """A standalone page that loads plotly.js from the file beside it (no network); `div_id` keeps bytes stable."""
    return fig.to_html(include_plotlyjs="directory", full_html=True, div_id=div_id,
                       config={"displaylogo": False, "responsive": True})


def write_html(fig: go.Figure, path: str | Path) -> Path:
    """Write the page and, once per folder, the plotly.js bundle it loads (one copy shared by every figure)."""
    from plotly.offline import get_plotlyjs

    path = Path(path)
    bundle = path.with_name(PLOTLY_JS)
    script = get_plotlyjs()
    if not bundle.is_file() or bundle.read_text(encoding="utf-8") != script:
        atomic.write_text(bundle, script)
    return atomic.write_text(path, figure_html(fig, div_id=path.stem))


class _Browser:
    """Inside png_session(): whether PNGs share one browser, and whether it has been started."""

    shared = False
    started = False


@contextlib.contextmanager
def png_session() -> Iterator[None]:
    """Every PNG written inside is drawn by one browser (kaleido's sync server), started at the first PNG and
    closed on leaving: a figure then takes well under a second, not a browser start of about 2 s each. The bytes
    are the same either way (tests/test_report_corpus.py)."""
    if _Browser.shared:  # nested: the outer session owns the browser
        yield
        return
    _Browser.shared = True
    try:
        yield
    finally:
        _Browser.shared = False
        if _Browser.started:
            import kaleido

            _Browser.started = False
            kaleido.stop_sync_server(silence_warnings=True)


def figure_png(fig: go.Figure, *, width: int | None = None, height: int | None = None,
               scale: float = PNG_SCALE) -> bytes:
    """The figure rendered to PNG by kaleido in the system browser (MathJax off: no CDN requests)."""
    import kaleido  # lazy: only figure export needs it

    kopts = {"mathjax": False, "path": find_browser()}
    width = width or fig.layout.width or 1200
    height = height or fig.layout.height or 800
    opts = {"format": "png", "width": int(width), "height": int(height), "scale": scale}
    if not _Browser.shared:
        return kaleido.calc_fig_sync(fig.to_dict(), opts=opts, kopts=kopts)
    if not _Browser.started:
        kaleido.start_sync_server(**kopts, silence_warnings=True)
        _Browser.started = True
    return kaleido.calc_fig_sync(fig.to_dict(), opts=opts)


def write_png(fig: go.Figure, path: str | Path, **kwargs) -> Path:
    return atomic.write_bytes(Path(path), figure_png(fig, **kwargs))


if __name__ == "__main__":
    import sys

    try:
        print(find_browser())
    except BrowserNotFoundError as exc:
        sys.exit(f"error: {exc}")
