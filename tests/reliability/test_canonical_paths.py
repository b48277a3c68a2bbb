"""Class: a path from a claim or manifest that names a file in a second spelling
(`./x`, `a//b`, `%2F`, full-width slash, NUL, backslash) and so escapes the checks keyed
on the first spelling.

Mechanism: `verifier/repopath.py` - one canonical form, required (never silently
normalised) for every path from a claim file (`path`, `lesson`), a manifest, the wheel
maps of pins.toml and the keys of pins.lock, with the canonical form in the error."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.reliability.conftest import few
from verifier.errors import ConfigError
from verifier.repopath import NotCanonical, canonical, is_canonical

GOOD = "include/mujoco/mjdata.h"
SPELLINGS = {
    "./include/mujoco/mjdata.h": GOOD, "include//mujoco/mjdata.h": GOOD,
    "include/./mujoco/mjdata.h": GOOD, "include%2Fmujoco%2Fmjdata.h": GOOD,
    "include%252Fmujoco/mjdata.h": GOOD, "include\uff0fmujoco/mjdata.h": GOOD,
    "include\\mujoco\\mjdata.h": GOOD, "include/mujoco/mjdata.h/": GOOD,
    "/include/mujoco/mjdata.h": GOOD, "include/mu\u200bjoco/mjdata.h": GOOD,
    "include/mujoco/../mujoco/mjdata.h": GOOD, " include/mujoco/mjdata.h": GOOD,
    "include/mujoco/mjdata.h\x00.txt": None, "../etc/passwd": None, "": None,
}


@pytest.mark.parametrize("spelling,canon", sorted(SPELLINGS.items()))
def test_every_other_spelling_is_refused_with_the_canonical_form(spelling, canon):
    with pytest.raises(NotCanonical) as ei:
        canonical(spelling)
    assert ei.value.canonical == canon
    if canon:
        assert repr(canon) in str(ei.value)


@pytest.mark.parametrize("spelling", ["./include/mujoco/mjdata.h", "include%2Fmujoco/mjdata.h",
                                      "include\uff0fmujoco/mjdata.h", "a\x00b.h"])
def test_a_claim_path_in_another_spelling_is_the_claims_error(tmp_path, monkeypatch, spelling):
    from tests.claims.simx_project import make_simx

    s = make_simx(tmp_path, monkeypatch)
    res = s.one('[[claim]]\nid = "p"\nfragment = "sx_advance(model, d)"\nkind = "symbol"\n'
                f"path = {json.dumps(spelling)}\nsymbol = \"sx_advance\"\nexpected = true\n")
    assert res.verdict.value == "error" and "canonical" in res.message, res.message


def test_a_claim_files_lesson_and_a_manifest_path_must_be_canonical(tmp_path, monkeypatch):
    from tests.claims.simx_project import make_simx
    from verifier.claims.loader import load_claims
    from verifier.pins import import_manifest

    s = make_simx(tmp_path, monkeypatch)
    s.write("", header='lesson = "./docs/lesson.md"\nupstream = "simx"\n')
    with pytest.raises(ConfigError, match="canonical.*'docs/lesson.md'"):
        load_claims(s.project)
    m = tmp_path / "sources.json"
    slug = s.project.pins.upstream["simx"].slug
    m.write_text(json.dumps({"upstream": slug, "commit": s.repo.head, "files": [
        {"path": "include%2Fsimx/simx.h", "git_blob": "1" * 40}]}))
    with pytest.raises(ConfigError, match="include/simx/simx.h") as ei:
        import_manifest(s.project.lock, s.project.pins, m)
    assert ei.value.line == 1


def test_lock_keys_and_wheel_maps_must_be_canonical():
    from pydantic import ValidationError

    from verifier.pins import LockedUpstream, PathMap

    with pytest.raises(ValidationError, match="canonical"):
        LockedUpstream(commit="a" * 40, files={"a//b.h": "b" * 40})
    with pytest.raises(ValidationError, match="canonical"):
        PathMap(wheel="mujoco/", repo="./include/")
    assert PathMap(wheel="mujoco/", repo="").repo == ""


# ----------------------------------------------------------------- the class, broadly
_seg = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd", "Lo"),
                                      whitelist_characters="_-."), min_size=1, max_size=8)
_good = st.lists(_seg, min_size=1, max_size=5).map("/".join).filter(is_canonical)
NOISE = [lambda p: "./" + p, lambda p: p.replace("/", "//", 1), lambda p: p.replace("/", "/./", 1),
         lambda p: p.replace("/", "%2F", 1), lambda p: p.replace("/", "%2f", 1),
         lambda p: p.replace("/", "\uff0f", 1), lambda p: p.replace("/", "\\", 1),
         lambda p: p.replace("/", "\u2215", 1), lambda p: p + "/", lambda p: "/" + p,
         lambda p: p[:1] + "\u200b" + p[1:], lambda p: p[:1] + "\u202e" + p[1:],
         lambda p: p[:1] + "\u00ad" + p[1:], lambda p: p + " "]


@few(200)
@given(_good, st.lists(st.integers(min_value=0, max_value=len(NOISE) - 1), min_size=1,
                       max_size=3))
def test_any_noisy_spelling_of_a_canonical_path_is_refused_naming_it(path, noise):
    noisy = path
    for i in noise:
        noisy = NOISE[i](noisy)
    assume(noisy != path)
    with pytest.raises(NotCanonical) as ei:
        canonical(noisy)
    assert ei.value.canonical == path, (noisy, ei.value)


@few(300)
@given(st.text(max_size=40))
def test_any_text_is_canonical_as_it_is_or_refused(text):
    try:
        got = canonical(text)
    except ValueError:
        return
    assert got == text and text
    segs = text.split("/")
    assert "" not in segs and "." not in segs and ".." not in segs
    assert "\\" not in text and "%2f" not in text.lower() and "\x00" not in text
