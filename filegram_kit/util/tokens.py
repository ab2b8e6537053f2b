"""A tokenizer-free token estimate, used wherever the project counts tokens without an API's usage.

BPE tokenizers of the models we target spend about 4 characters of English (or code, or paths)
per token, and about one token per Chinese character. So: ceil(other characters / 4) + CJK
characters. It is an estimate, not a count (no tokenizer is downloaded); API backends report
their real usage instead, and results say which one a number is.
"""

from __future__ import annotations

import math
import re

import numpy as np

CHARS_PER_TOKEN = 4
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


_IS_CJK = np.zeros(0x10000, dtype=bool)  # per BMP code point: in a range of _CJK (which are all in the BMP)
for _lo, _hi in ((0x3000, 0x303F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF)):
    _IS_CJK[_lo:_hi + 1] = True
LONG_TEXT = 64  # characters from which counting code points in numpy beats the regex


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text` (0 for empty text, at least 1 otherwise)."""
    if not text:
        return 0
    cjk = 0 if text.isascii() else cjk_characters(text)  # isascii: a C scan, no regex over English text
    return max(1, cjk + math.ceil((len(text) - cjk) / CHARS_PER_TOKEN))


def cjk_characters(text: str) -> int:
    """How many characters of `text` fall in the CJK ranges (`_CJK`): by regex when short, by array when long
    (a memory's whole text or a prompt; metering counts every one)."""
    if len(text) < LONG_TEXT:
        return len(_CJK.findall(text))
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return int(np.count_nonzero(_IS_CJK[np.minimum(codes, 0xFFFF)]))  # U+FFFF is no CJK: astral planes count 0
