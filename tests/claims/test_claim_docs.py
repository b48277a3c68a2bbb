"""docs/claims: every kind documented, every TOML example valid; the README examples on
files the pinned wheels serve actually verify."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from verifier.claims.kinds import REGISTRY
from verifier.claims.kinds.base import CheckContext
from verifier.claims.model import ClaimFile
from verifier.results import Verdict

DOCS = Path(__file__).resolve().parents[2] / "docs" / "claims"
BUILTIN = sorted(n for n in REGISTRY if REGISTRY[n].__module__.startswith("verifier.claims."))


def _examples(md: Path) -> list[dict]:
    out = []
    for block in re.findall(r"```toml\n(.*?)```", md.read_text(), re.S):
        head = "" if re.search(r"^lesson\s*=", block, re.M) else \
            'lesson = "docs/x.md"\nupstream = "mujoco"\n'
        data = tomllib.loads(head + block)
        out.extend(ClaimFile.model_validate(data).model_dump()["claim"])
    return out


def test_kinds_have_pages_with_their_code():
    # codes and headings are checked on the registry in tests/test_registries.py
    for name in BUILTIN:
        doc = (DOCS / f"{name}.md").read_text()
        assert doc.startswith(f"# `{name}` ({REGISTRY[name].code})")
        for heading in ("## What it checks", "## Why it matters", "## Example"):
            assert heading in doc, (name, heading)


def test_every_registered_kind_has_a_page_and_readme_row():
    readme = (DOCS / "README.md").read_text()
    for name, cls in REGISTRY.items():
        if name.startswith("test-"):
            continue
        assert (DOCS / f"{name}.md").is_file(), name
        assert f"| `{name}` | {cls.code} |" in readme, name


def test_readme_examples_are_valid_claims_of_known_kinds():
    # every kind's own page has its example (test_kind_page_examples_are_valid); the
    # README's examples are a curated set, valid and of registered kinds
    kinds = [c["kind"] for c in _examples(DOCS / "README.md")]
    assert len(set(kinds)) >= 10 and set(kinds) <= set(BUILTIN)


@pytest.mark.parametrize("name", BUILTIN)
def test_kind_page_examples_are_valid(name):
    ex = _examples(DOCS / f"{name}.md")
    assert ex and all(c["kind"] == name for c in ex)


@pytest.mark.wheels
def test_readme_examples_on_wheel_files_verify(real_project):
    from verifier.claims.model import Claim

    ran = 0
    for raw in _examples(DOCS / "README.md"):
        c = Claim.model_validate(raw)
        up = c.upstream or "mujoco"
        if c.kind == "runtime" or not c.path or not c.path.startswith(("include/", "newton/")):
            continue
        ctx = CheckContext(project=real_project, upstream=real_project.pins.get(up))
        out = REGISTRY[c.kind]().check(c, ctx)
        assert out.verdict is Verdict.VERIFIED, (c.id, out.message)
        ran += 1
    assert ran >= 3
