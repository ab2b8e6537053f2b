"""The multimodal setting (paper section 6.1): the same event logs, the text outputs rendered as files.

    build_multimodal("data/corpus", "data/corpus_multimodal")     # `filegram corpus --setting multimodal`
    parse_report("data/corpus_multimodal")                        # one row per rendered file: what the parse lost

sections.py splits an output, render.py renders a section (ooxml.py: fast DOCX/PPTX), parse.py is the
one parser text methods read it through (and what it loses), build.py writes the corpus, browse.py
shows one file beside its source.
"""

from .browse import RenderedFile, examples, open_rendered
from .build import (
           MultimodalError,
           MultimodalReport,
           build_multimodal,
           default_dir,
           distinct,
           loss_summary,
           parse_report,
)
from .parse import Loss, ParseError, measure, ocr, parse_files
from .render import FORMATS, RenderError, choose_format, render_section
from .sections import Section, split_output

__all__ = ["FORMATS", "Loss", "MultimodalError", "MultimodalReport", "ParseError", "RenderError", "RenderedFile",
           "Section", "build_multimodal", "choose_format", "default_dir", "distinct", "examples", "loss_summary",
           "measure", "ocr", "open_rendered", "parse_files", "parse_report", "render_section", "split_output"]
