"""Relocation of one cited range: line maps, content search, ambiguity, symbol fallback."""

from __future__ import annotations

from verifier.upgrade.fingerprint import fingerprint, fingerprint_lines
from verifier.upgrade.linemap import from_hunks, parse_hunks
from verifier.upgrade.model import LinkStatus
from verifier.upgrade.relocate import relocate
from verifier.upgrade.write import rewrite_urls


def test_fingerprint_ignores_whitespace_only():
    a = "int f(int x) {\n  return x;\n}\n"
    b = "int  f(int x)  {\n\treturn x;\n}\n"
    assert fingerprint(a, 1, 3) == fingerprint(b, 1, 3)
    assert fingerprint(a, 1, 3) != fingerprint("int f(int y) {\n  return y;\n}\n", 1, 3)
    assert fingerprint(a, 2, 9) is None
    assert fingerprint_lines(["a  b", " c"]) == fingerprint_lines(["a b", "c"])


def test_hunk_map_insertions_and_deletions():
    diff = "@@ -2,0 +3,2 @@\n+x\n+y\n@@ -5,2 +6,0 @@\n-a\n-b\n@@ -9 +9 @@\n-o\n+n\n"
    hunks = parse_hunks(diff)
    assert hunks == [(2, 0, 3, 2), (5, 2, 6, 0), (9, 1, 9, 1)]
    lm = from_hunks(hunks, 10, 10)
    assert [lm.get(i) for i in range(1, 11)] == [1, 2, 5, 6, None, None, 7, 8, None, 10]
    assert lm.estimate(5) == 7  # next to its mapped predecessor (old 4 -> new 6)
    assert lm.estimate(9) == 9


def test_alignment_moves_block_down():
    old = ["a", "b", "c", "d"]
    new = ["x", "y", "a", "b", "c", "d"]
    r = relocate("\n".join(old), "\n".join(new), 2, 3)
    assert (r.status, r.start, r.end, r.method) == (LinkStatus.MOVED, 4, 5, "alignment")


def test_same_range_same_path_is_unchanged():
    text = "a\nb\nc\n"
    r = relocate(text, text.replace("c", "C"), 1, 2, old_path="f", new_path="f")
    assert r.status is LinkStatus.UNCHANGED and (r.start, r.end) == (1, 2)


def test_block_moved_far_is_found_by_search():
    body = ["def helper(a, b):", "    total = a + b", "    return total"]
    old = ["import os", ""] + body + ["", "def main():", "    pass"]
    new = ["import os", "", "def main():", "    pass", ""] + [f"# {i}" for i in range(30)] + body
    r = relocate("\n".join(old), "\n".join(new), 3, 5, old_path="m.py", new_path="m.py")
    assert r.status is LinkStatus.MOVED and (r.start, r.end) == (36, 38)


def test_repeated_block_is_ambiguous_not_moved():
    blk = ["    if not ok:", "        log('failed to read the value')", "        return None"]
    old = ["def a():"] + blk + ["def b():", "    pass"]
    new = ["def a():", "    if ok:", "        go()", "        return 1", "def b():", "    pass",
           "def y():"] + blk + ["def w():"] + blk
    # git says the cited lines 2-4 were replaced in place; the old block now occurs twice
    lm = from_hunks([(2, 3, 2, 3)], len(old), len(new))
    r = relocate("\n".join(old), "\n".join(new), 2, 4, linemap=lm)
    assert r.status is LinkStatus.AMBIGUOUS
    assert r.suggested == (8, 10) and "2 times" in r.detail


def test_tiny_block_is_not_relocated_by_search():
    old = ["x = 1", "}", "y = 2"]
    new = ["x = 1", "z = 3", "y = 2", "w = 4", "}"]
    lm = from_hunks([(2, 1, 2, 1), (3, 0, 4, 2)], 3, 5)  # `}` replaced in place
    r = relocate("\n".join(old), "\n".join(new), 2, 2, linemap=lm)
    assert r.status is LinkStatus.CHANGED  # a lone `}` found elsewhere is not the cited code
    big = ["x = 1", "}", "y = 2"]
    r2 = relocate("\n".join(big), "\n".join(["x = 1", "z", "y = 2", "}"]), 2, 2,
                  linemap=from_hunks([(2, 1, 2, 1), (3, 0, 4, 1)], 3, 4))
    assert r2.status is LinkStatus.CHANGED


def test_symbol_fallback_places_range_in_moved_and_edited_function():
    old = (
        "def first():\n"
        "    return 1\n"
        "\n"
        "def target(a, b):\n"
        "    s = a + b\n"
        "    s = s * 2\n"
        "    return s\n"
    )
    filler = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(20))
    new = (
        filler +
        "def target(a, b, c=0):\n"
        "    s = a + b + c\n"
        "    s = s * 3\n"
        "    return s\n"
        "\n"
        "def first():\n"
        "    return 1\n"
    )
    r = relocate(old, new, 4, 7, old_path="m.py", new_path="m.py")
    assert r.status is LinkStatus.CHANGED
    assert r.symbol == "target"
    start = new.splitlines().index("def target(a, b, c=0):") + 1
    assert r.suggested == (start, start + 3)
    assert r.diff and any(d.startswith("+") for d in r.diff)


def test_symbol_fallback_c_function():
    old = "int helper(void) { return 0; }\n\nint mj_thing(int x) {\n  int y = x;\n  return y;\n}\n"
    new = ("int mj_thing(int x, int z) {\n  int y = x + z;\n  return y;\n}\n\n"
           + "".join(f"int pad{i}(void) {{ return {i}; }}\n" for i in range(10))
           + "int helper(void) { return 0; }\n")
    r = relocate(old, new, 3, 6, old_path="a.c", new_path="a.c")
    assert r.status is LinkStatus.CHANGED and r.symbol == "mj_thing"
    assert r.suggested == (1, 4)


def test_range_outside_old_file_is_skipped():
    r = relocate("a\nb\n", "a\nb\n", 5, 9)
    assert r.status is LinkStatus.SKIPPED and "outside" in r.detail


def test_rewrite_urls_is_single_pass_and_whole_url():
    a = "https://github.com/o/r/blob/" + "1" * 40 + "/f.py#L5-L10"
    b = "https://github.com/o/r/blob/" + "1" * 40 + "/f.py#L7-L12"
    longer = a + "0"  # a different URL that starts with `a`
    data = f"[x]({a}) [y]({b}) <{longer}>\r\nrest ü\n".encode()
    new_a = b  # a's new URL equals b's old URL: must not be rewritten twice
    new_b = "https://github.com/o/r/blob/" + "2" * 40 + "/f.py#L9-L14"
    out, counts = rewrite_urls(data, {a: new_a, b: new_b})
    assert out == f"[x]({new_a}) [y]({new_b}) <{longer}>\r\nrest ü\n".encode()
    assert counts == {a: 1, b: 1}


def test_lines_are_numbered_like_github():
    from verifier.upgrade.fingerprint import split_lines

    text = "a\x0cb\nc\r\nd\u2028e\n"
    assert split_lines(text) == ["a\x0cb", "c", "d\u2028e"]
    assert split_lines("x") == ["x"] and split_lines("") == [] and split_lines("\n") == [""]
    # a form feed does not shift later lines
    old = "int a;\n\x0c\nint target(void) {\n  return 1;\n}\n"
    new = "int a;\nint b;\n\x0c\nint target(void) {\n  return 1;\n}\n"
    r = relocate(old, new, 3, 5)
    assert (r.status, r.start, r.end) == (LinkStatus.MOVED, 4, 6)


def test_blank_citation_is_flagged():
    r = relocate("a\n\nb\n", "z\na\n\nb\n", 2, 2)
    assert (r.status, r.start) == (LinkStatus.MOVED, 3) and "blank" in r.detail


def test_fingerprint_is_lints_permalink_anchor_fingerprint():
    lint = __import__("pytest").importorskip("verifier.lint.rules.permalink_anchor")
    lines = ["  def f(x):", "\treturn  x + 1", ""]
    assert fingerprint_lines(lines) == lint.fingerprint(lines)
    assert fingerprint_lines(lines).startswith("sha256:")
    import hashlib
    expected = hashlib.sha256("def f(x):\nreturn x + 1\n".encode()).hexdigest()
    assert fingerprint_lines(lines) == "sha256:" + expected


def test_edit_pins_touches_only_identity_strings():
    from pathlib import Path

    from verifier.pins import Upstream, Wheel
    from verifier.upgrade.write import edit_pins

    src = ('# top comment\n[upstream.x]\nrepo = "https://github.com/o/x"\n'
           f'commit = "{"a" * 40}"  # the pin\nversion = "1.0"   # v\ntag = "v1.0"\n'
           'runtime = ["x==1.0", "y==2"]  # env\n\n[[upstream.x.wheel]]\n'
           'requirement = "x==1.0"  # wheel\nmap = [{ wheel = "x/", repo = "x/" }]\n\n'
           '[upstream.other]\ncommit = "' + "c" * 40 + '"\nversion = "1.0"\n')
    old = Upstream(name="x", repo="https://github.com/o/x", commit="a" * 40, version="1.0",
                   tag="v1.0", runtime=["x==1.0", "y==2"], wheel=[Wheel(requirement="x==1.0")])
    new = old.model_copy(update={"commit": "b" * 40, "version": "2.0", "tag": None,
                                 "runtime": ["x==2.0", "y==2"],
                                 "wheel": [Wheel(requirement="x==2.0")]})
    out, notes = edit_pins(src, Path("pins.toml"), old, new)
    expected = (src.replace("a" * 40, "b" * 40).replace('version = "1.0"   # v', 'version = "2.0"   # v')
                .replace('"x==1.0", "y==2"', '"x==2.0", "y==2"')
                .replace('requirement = "x==1.0"', 'requirement = "x==2.0"'))
    assert out == expected  # comments, layout and the other upstream untouched
    assert notes and "tag" in notes[0]  # the old tag is left for the author


def test_symbol_anchor_prefers_the_method_the_range_sits_on():
    from verifier.facts.model import Sym
    from verifier.upgrade.relocate import anchor_of as anchor

    cls = Sym("Solver", "class", ("Solver",), 1, 500)
    meth = Sym("validate", "method", ("Solver", "validate"), 100, 118)
    other = Sym("step", "method", ("Solver", "step"), 120, 160)
    assert anchor([cls, meth, other], 100, 121) == meth   # range runs 3 lines past the method
    assert anchor([cls, meth, other], 90, 200) == cls
    assert anchor([cls, meth], 600, 610) is None
