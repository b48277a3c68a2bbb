"""Characters that change how text reads without being seen, shown escaped everywhere.

A name or path can carry characters a reader cannot see: bidi controls (U+202E turns
`evil.md` into `dm.live` on screen), zero-width spaces and joiners (`mj_<U+200B>step`
looks like `mj_step`), soft hyphens, the BOM and their kin (`INVISIBLE`). Every output
format shows each of them as the text `\\uXXXX` (`escape`), applied in one place per way
out: the reporter registry's `render` / `render_files` (JSON, SARIF, Markdown, HTML,
JUnit, GitHub annotations), the JSON the commands print, and the console printer
(`verifier/cli/output.py`). In JSON and SARIF `\\uXXXX` is an escape, so the value read
back is the original text, byte for byte; in the other formats it is what the reader
sees. Control characters are the printers' own business (escaped there already).
"""

from __future__ import annotations

import re

# bidi controls (embeddings, overrides, isolates, marks), zero-width and invisible
# separators, joiners, word joiner and invisible operators, soft hyphen, combining
# grapheme joiner, Hangul fillers, Mongolian vowel separator, Khmer inherent vowels,
# the BOM / zero-width no-break space, deprecated format characters
INVISIBLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e"
             "\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066"
             "\u2067\u2068\u2069\u206a\u206b\u206c\u206d\u206e\u206f\u3164\ufeff\uffa0")
_ANY = re.compile("[" + re.escape(INVISIBLE) + "]")
_TABLE = {ord(c): f"\\u{ord(c):04x}" for c in INVISIBLE}


def escape(text: str) -> str:
    """`text` with every invisible character as the six characters `\\uXXXX`."""
    if not _ANY.search(text):
        return text
    return text.translate(_TABLE)


def has_invisible(text: str) -> bool:
    return _ANY.search(text) is not None
