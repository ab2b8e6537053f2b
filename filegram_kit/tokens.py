"""A tokenizer-free token estimate, used wherever the project counts tokens without an API's usage.

BPE tokenizers of the models we target spend about 4 characters of English (or code, or paths)
per token, and about one token per Chinese character. So: ceil(other characters / 4) + CJK
characters. It is an estimate, not a count (no tokenizer is downloaded); API backends report
their real usage instead, and results say which one a number is.
"""

from __future__ import annotations

import math
import re

CHARS_PER_TOKEN = 4
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text` (0 for empty text, at least 1 otherwise)."""
    if not text:
        return 0
    cjk = 0 if text.isascii() else len(_CJK.findall(text))  # isascii: a C scan, no regex over English text
    return max(1, cjk + math.ceil((len(text) - cjk) / CHARS_PER_TOKEN))
