"""Class: text that reads as something else (F2-4 and F5: a bidi override, a zero-width
space or a soft hyphen in a name or path is invisible in a record, so `evil\u202emd.txt`
reads as `eviltxt.dm` and `mj_\u200bstep` as `mj_step`).

Mechanism: `verifier/visible.py` - each invisible character is shown as `\\uXXXX` in
every output: the reporter registry's `render`/`render_files` (every record format),
the JSON the commands print, and the console printer."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.reliability.conftest import few
from verifier.reporters import FORMATS, render, render_files
from verifier.visible import INVISIBLE, escape

HOSTILE = "zz-\u202eevil\u200b-\u00ad-\ufeff\u2066"


@pytest.fixture
def hostile_record():
    from tests.reporters.fixture_record import load

    record = load()
    c = record.claims[0]
    lessons = [les.model_copy(update={"path": f"docs/{HOSTILE}.md"}) if les.course == c.course
               and les.path == c.lesson else les for les in record.lessons]
    claims = [c.model_copy(update={"id": f"{c.course}/{HOSTILE}/id", "lesson": f"docs/{HOSTILE}.md",
                                   "symbol": "mj_\u200bstep", "message": f"see {HOSTILE}"}),
              *record.claims[1:]]
    return record.model_copy(update={"lessons": lessons, "claims": claims})


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_shows_invisible_characters_escaped(hostile_record, fmt):
    texts = [render(hostile_record, fmt)]
    texts += list(render_files(hostile_record, fmt).values())
    names = list(render_files(hostile_record, fmt))
    for t in [*texts, *names]:
        assert not any(ch in t for ch in INVISIBLE), (fmt, [hex(ord(ch)) for ch in t
                                                            if ch in INVISIBLE][:3])
    assert "\\u202e" in texts[0] or fmt == "github" and "\\u202e" in "".join(texts), fmt
    if fmt in ("json", "sarif"):          # in JSON an escape: the value reads back the same
        doc = json.loads(texts[0])
        assert HOSTILE in json.dumps(doc, ensure_ascii=False)


def test_the_console_shows_them_escaped(capsys):
    from verifier.cli import output as o

    o.say(f"lesson {HOSTILE}")
    o.error(f"bad {HOSTILE}")
    got = capsys.readouterr()
    for t in (got.out, got.err):
        assert not any(ch in t for ch in INVISIBLE) and "\\u202e" in t


def test_the_json_commands_print_is_escaped_and_reads_back_the_same(capsys):
    from verifier.cli.render import print_json

    print_json({"path": HOSTILE})
    out = capsys.readouterr().out
    assert not any(ch in out for ch in INVISIBLE) and json.loads(out) == {"path": HOSTILE}


@few(200)
@given(st.text(alphabet=st.sampled_from(list(INVISIBLE) + list("ab/.\\\"'{}[]:,\n")), max_size=40))
def test_any_text_escaped_has_no_invisible_character_and_json_reads_back(text):
    got = escape(text)
    assert not any(ch in got for ch in INVISIBLE)
    dumped = json.dumps({"k": text}, ensure_ascii=False)
    assert json.loads(escape(dumped)) == {"k": text}
