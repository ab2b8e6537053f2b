"""Real chart images for visual-heavy personas: a bar chart drawn with Pillow, saved as PNG bytes."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

_PALETTE = [(59, 117, 175), (239, 133, 54), (81, 157, 62), (197, 57, 50), (141, 106, 184), (132, 88, 78)]


def bar_chart_png(title: str, values: list[tuple[str, float]], *, width: int = 480, height: int = 300) -> bytes:
    """A labelled bar chart of (label, value) pairs; deterministic bytes for the same input."""
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((12, 8), title[:70].encode("ascii", "replace").decode(), fill="black")
    values = values[:8] or [("none", 0.0)]
    top = max(abs(v) for _, v in values) or 1.0
    left, bottom, plot_h = 40, height - 40, height - 80
    slot = (width - left - 20) / len(values)
    draw.line((left, bottom, width - 10, bottom), fill="black")
    draw.line((left, bottom, left, 30), fill="black")
    for i, (label, value) in enumerate(values):
        x0 = left + i * slot + slot * 0.15
        bar = abs(value) / top * plot_h
        draw.rectangle((x0, bottom - bar, x0 + slot * 0.7, bottom), fill=_PALETTE[i % len(_PALETTE)])
        draw.text((x0, bottom + 6), label[:10].encode("ascii", "replace").decode(), fill="black")
        draw.text((x0, bottom - bar - 12), f"{value:g}"[:8], fill="black")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()
