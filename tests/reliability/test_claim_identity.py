"""Class: a claim that takes another claim's identity or reads outside the project
(F1-6: a second claim file for a lesson reusing an id silently got the global id and the
claims.lock binding of the reviewed claim; F1-7: claim-file symlinks were followed; F7-4:
a 2-file manifest marked an 86-entry lock entry complete).

Mechanisms: global ids shared by two claim FILES are an error on every claim that
shares them (`claims/loader._shared_ids`); claim files, claim folders, notation.toml and
claims.lock must resolve inside claims/ (`claims/model.confined`); a manifest's
`complete` is believed only for a listing of the whole tree (`pins.import_manifest`)."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.claims.simx_project import HEADER
from tests.reliability.conftest import few
from verifier.errors import ConfigError

CLAIM = ('[[claim]]\nid = "{id}"\nfragment = "sx_advance(model, d)"\nkind = "symbol"\n'
         'path = "include/simx/simx.h"\nsymbol = "sx_advance"\nexpected = {exp}\n')


@pytest.fixture
def s(tmp_path, monkeypatch):
    from tests.claims.simx_project import make_simx

    return make_simx(tmp_path, monkeypatch)


def _results(s):
    from verifier.claims.check import run_check

    return run_check(s.project)


def test_an_id_reused_by_a_second_claim_file_of_the_lesson_is_an_error_f1_6(s):
    from verifier.cli.main import main

    s.write(CLAIM.format(id="adv", exp="true"))
    assert main(["claims", "rebind", "--all", "--pins", str(s.root / "pins.toml"), "-q"]) == 0
    other = s.claim_file.with_name("aaa-more.toml")       # sorts first
    other.write_text(HEADER + CLAIM.format(id="adv", exp="false"))
    got = _results(s)
    # neither passes on the reviewed claim's binding: both are errors naming each other
    # (the run-unique `#2` of the second is only what keeps two results apart)
    assert len(got) == 2 and all(r.verdict.value == "error" for r in got), got
    for r in got:
        assert "also given by" in r.message and "unique per lesson" in r.message
    lock = (s.root / "claims" / "claims.lock").read_text()
    assert "demo-atlas/lesson/adv" in lock                    # the binding is untouched


def test_two_lessons_with_one_file_name_and_one_id_are_errors_naming_both(s, tmp_path):
    docs = tmp_path / "course" / "demo-atlas" / "docs"
    (docs / "b").mkdir()
    (docs / "b" / "lesson.md").write_text((docs / "lesson.md").read_text())
    s.write(CLAIM.format(id="adv", exp="true"))
    (s.claim_file.with_name("lesson-b.toml")).write_text(
        'lesson = "docs/b/lesson.md"\nupstream = "simx"\n\n' + CLAIM.format(id="adv", exp="true"))
    got = _results(s)
    assert len(got) == 2 and all(r.verdict.value == "error" for r in got)
    assert all("same file name" in r.message for r in got)


@pytest.mark.parametrize("what", ["claim file", "claim folder", "notation.toml", "claims.lock"])
def test_symlinks_out_of_the_claims_directory_are_refused_f1_7(s, tmp_path, what):
    from verifier.claims.loader import load_claims
    from verifier.claims.lock import load_bindings

    secret = tmp_path / "secret.toml"
    secret.write_text('lesson = "docs/lesson.md"\nGITHUB_TOKEN = "ghp_x"\n')
    claims = s.root / "claims"
    s.write(CLAIM.format(id="adv", exp="true"))
    if what == "claim file":
        (claims / "demo-atlas" / "leak.toml").symlink_to(secret)
    elif what == "claim folder":
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "elsewhere" / "x.toml").symlink_to(secret)
        (claims / "demo-atlas").rename(tmp_path / "moved")
        (claims / "demo-atlas").symlink_to(tmp_path / "moved", target_is_directory=True)
    elif what == "notation.toml":
        (claims / "demo-atlas" / "notation.toml").symlink_to(secret)
    else:
        (claims / "claims.lock").symlink_to(secret)
    with pytest.raises(ConfigError) as ei:
        load_claims(s.project)
        load_bindings(claims)
    assert "resolves outside the claims directory" in ei.value.render()
    assert "ghp_x" not in ei.value.render()


def test_a_symlink_inside_the_claims_directory_is_fine(s):
    from verifier.claims.loader import load_claims

    s.write(CLAIM.format(id="adv", exp="true"))
    (s.claim_file.parent / "alias.toml").symlink_to(s.claim_file)   # a link within claims/
    assert len(load_claims(s.project)) == 2


def test_a_partial_manifest_cannot_mark_the_lock_complete_f7_4(s, tmp_path):
    from verifier.pins import Lock, LockedUpstream, import_manifest

    up = s.project.pins.upstream["simx"]
    files = {p: s.repo.blob(p) for p in ("include/simx/simx.h", "include/simx/sxdata.h",
                                         "include/simx/sxtype.h")}
    lock = Lock(upstream={"simx": LockedUpstream(commit=up.commit, files=files)})
    m = tmp_path / "sources.json"
    m.write_text(json.dumps({"upstream": up.slug, "commit": up.commit, "complete": True,
                             "files": [{"path": "include/simx/simx.h",
                                        "git_blob": files["include/simx/simx.h"]}]}))
    with pytest.raises(ConfigError, match="complete.*lacks include/simx/sxdata.h"):
        import_manifest(lock, s.project.pins, m)
    tree = {**files, "src/extra.c": "e" * 40}
    m.write_text(json.dumps({"upstream": up.slug, "commit": up.commit, "complete": True,
                             "files": [{"path": p, "git_blob": b} for p, b in files.items()]}))
    with pytest.raises(ConfigError, match="the git tree .* has 4"):
        import_manifest(lock, s.project.pins, m, tree_of=lambda n: tree)
    new, _, _ = import_manifest(lock, s.project.pins, m, tree_of=lambda n: files)
    assert new.upstream["simx"].complete


# ----------------------------------------------------------------- the class, broadly
@few(20)
@given(st.lists(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3,
                         unique=True), min_size=1, max_size=3))
def test_any_assignment_of_ids_to_claim_files_gives_each_id_to_one_file_or_errors(s, files):
    from verifier.claims.loader import load_claims

    d = s.claim_file.parent
    d.mkdir(parents=True, exist_ok=True)
    for f in d.glob("*.toml"):
        f.unlink()
    for i, ids in enumerate(files):
        (d / f"f{i}.toml").write_text(HEADER + "".join(CLAIM.format(id=x, exp="true")
                                                       for x in ids))
    loaded = load_claims(s.project)
    owners: dict[str, set] = {}
    for lc in loaded:
        owners.setdefault(lc.claim.id, set()).add(lc.file.name)
    for lc in loaded:
        shared = len(owners[lc.claim.id]) > 1
        assert bool(lc.problem) == shared, (files, lc.claim.id, lc.problem)
    assert os.path.isdir(d)
