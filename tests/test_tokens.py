"""The token estimate: its CJK count is the same whichever way it is made (regex for short text, array for long)."""

from __future__ import annotations

import random

from filegram_kit.util.tokens import _CJK, LONG_TEXT, cjk_characters, estimate_tokens

EDGES = [0x2FFF, 0x3000, 0x303F, 0x3040, 0x33FF, 0x3400, 0x4DBF, 0x4DC0, 0x4E00, 0x9FFF, 0xA000, 0xF8FF, 0xF900,
         0xFAFF, 0xFB00, 0xFEFF, 0xFF00, 0xFFEF, 0xFFF0, 0xFFFF, 0xD800, 0xDFFF, 0x1F600, 0x20000, 0x4E01 + 0x10000]


def test_the_cjk_count_agrees_with_the_pattern_at_every_range_edge_and_length():
    rng = random.Random(7)
    for length in (1, LONG_TEXT - 1, LONG_TEXT, LONG_TEXT + 1, 3000):
        for _ in range(40):
            text = "".join(chr(rng.choice(EDGES) if rng.random() < 0.7 else rng.randint(1, 0x10FFFF))
                           for _ in range(length))
            assert cjk_characters(text) == len(_CJK.findall(text))


def test_a_chinese_character_is_a_token_and_four_other_characters_are_one():
    assert estimate_tokens("") == 0 and estimate_tokens("a") == 1
    assert estimate_tokens("用户" * 100 + "abcd" * 100) == 200 + 100
    assert estimate_tokens("用户\U00020000" * 40) == 80 + 10  # an astral character counts as other text
