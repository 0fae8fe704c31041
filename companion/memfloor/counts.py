"""Counts written as text (settings from the environment, indexes in names), read strictly.

str.isdigit() accepts what int() refuses (superscripts: '²'), and int() refuses decimal strings of
more than 4,300 digits (Python 3.11 on): either would raise inside someone else's program. A count
here is 1 to 18 ASCII digits, which int() always takes and an int64 holds.
"""

from typing import Optional

MAX_DIGITS = 18


def count_of(text: str) -> Optional[int]:
    """The count `text` writes, or None when it is not one."""
    if 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit():
        return int(text)
    return None
