"""Class: unbounded parsing of untrusted input (F1-1, F7-5, F7-6: a 5,000-digit integer
crashed every TOML/JSON reader, deeply nested manifest JSON was exit 3).

Mechanism: `verifier/tomlerrors.py` is the one bounded reader of every TOML and JSON
input; every reader of the tool goes through it (checked below by reading the sources),
and every input it refuses is a ConfigError naming the file (and line where known)."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.reliability.conftest import few
from verifier import tomlerrors
from verifier.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2] / "verifier"


# ----------------------------------------------------------------- the examples
@pytest.mark.parametrize("text,where", [
    ("a = " + "9" * 5000 + "\n", 1),                      # F1-1
    ("[x]\nb = 1\nc = -" + "1" * 400 + "\n", 3),
    ("v = 0x" + "f" * 64 + "\n", 1),                      # hex: no Python limit, still > 64 bits
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", None),       # nesting
    ("x = " + "{a=" * 40 + "1" + "}" * 40 + "\n", 1),
])
def test_toml_limits_are_clear_errors(tmp_path, text, where):
    f = tmp_path / "in.toml"
    f.write_text(text)
    with pytest.raises(ConfigError) as ei:
        tomlerrors.read_toml(f)
    assert str(f) in ei.value.render() and ei.value.line == where, ei.value.render()


@pytest.mark.parametrize("text", ['{"files": [' + "9" * 5000 + "]}",        # F7-6
                                  "[" * 100000 + "]" * 100000,             # F7-5
                                  '{"a": NaN}', '{"a": 1e999}', '{"a": [' * 40 + "1" + "]}" * 40])
def test_json_limits_are_clear_errors(tmp_path, text):
    f = tmp_path / "sources.json"
    f.write_text(text)
    with pytest.raises(ConfigError) as ei:
        tomlerrors.read_json(f)
    assert str(f) in ei.value.render()


def test_fifo_device_directory_and_huge_files_are_refused_without_blocking(tmp_path, monkeypatch):
    fifo = tmp_path / "claims.toml"
    os.mkfifo(fifo)
    for p, words in [(fifo, "FIFO"), (Path("/dev/zero"), "not a regular file"),
                     (tmp_path, "directory")]:
        with pytest.raises(ConfigError, match=words):
            tomlerrors.read_text(p)
    big = tmp_path / "big.toml"
    big.write_bytes(b"# x\n" * 10)
    monkeypatch.setattr(tomlerrors, "MAX_BYTES", 16)
    with pytest.raises(ConfigError, match="above the limit"):
        tomlerrors.read_toml(big)


def test_undecodable_byte_names_its_line(tmp_path):
    f = tmp_path / "c.toml"
    f.write_bytes(b'a = 1\n\nb = "\xff"\n')
    with pytest.raises(ConfigError) as ei:
        tomlerrors.read_toml(f)
    assert ei.value.line == 3


def test_manifest_with_a_huge_integer_is_exit_2_from_the_cli(tmp_path, capsys):
    """F7-6 end to end: `lock --import` of a manifest holding a 5,000-digit number."""
    from tests.claims.simx_project import make_simx
    from verifier.cli.main import main

    with pytest.MonkeyPatch.context() as mp:
        s = make_simx(tmp_path, mp)
        m = tmp_path / "sources.json"
        m.write_text('{"upstream": "x/simx", "commit": "' + s.repo.head + '", "count": '
                     + "7" * 5000 + ', "files": []}')
        code = main(["lock", "--pins", str(s.root / "pins.toml"), "--import", str(m), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "sources.json" in err and "Traceback" not in err, err


def test_every_toml_and_json_read_goes_through_the_bounded_reader():
    """The mechanism holds for new code too: no module of the tool parses TOML or JSON
    text from a file itself (tomllib / json.load / tomlkit.parse of file text), except
    the bounded reader, and the places that parse what the tool itself wrote (the cache,
    runtime events it produces, its own scratch files) listed here with why."""
    own = {
        "tomlerrors.py": "the bounded reader",
        "cache.py": "cache entries the tool wrote (corrupt ones are removed)",
        "runtime/runner.py": "events of the harness (a bad line is not an event)",
        "runtime/harness.py": "runs in the environment; its own commands and results",
        "runtime/envdigest.py": "the digest the tool wrote",
        "runtime/envs.py": "the version report of a subprocess the tool wrote",
        "runtime/jail.py": "its plan, written by the tool",
        "facts/introspect.py": "argv from the tool",
        "facts/release.py": "the introspection output and env marker the tool wrote",
        "facts/indexdb.py": "the symbol index database the tool wrote",
        "sources/index.py": "the package index's JSON API answer (bounded by the download)",
        "safewrite.py": "its own transaction journal",
        "upgrade/write.py": "pins.toml already read by the bounded reader (tomlkit edit)",
        "draft/write.py": "a claim file already read by the bounded reader (tomlkit edit)",
        "draft/measure.py": "pins.toml already read by the bounded reader (tomlkit edit)",
        "bench/course.py": "the benchmark's own command output",
        "bench/scale.py": "the benchmark's copies of the project's own claim files and outputs",
        "bench/planted.py": "the planted-error set it is given (the benchmark's own input)",
        "claims/claimedit.py": "a claim file already read by the bounded reader (tomlkit edit)",
        "claims/saysdraft.py": "a claim file already read by the bounded reader (tomlkit edit)",
        "claims/says.py": "polarity.toml, the lexicon shipped with the tool",
    }
    found = {}
    for f in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                base = node.func.value
                name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
                call = f"{name}.{node.func.attr}"
                if call in ("tomllib.loads", "tomllib.load", "json.load", "json.loads",
                            "_json.loads", "tomlkit.parse", "tomlkit.loads", "orjson.loads"):
                    found.setdefault(f.relative_to(ROOT).as_posix(), set()).add(call)
    unexplained = {k: v for k, v in found.items() if k not in own}
    assert not unexplained, f"TOML/JSON parsed outside the bounded reader: {unexplained}"


# ----------------------------------------------------------------- the class, broadly
_fragments = st.sampled_from([
    "a = 1\n", "[t]\n", "[[claim]]\n", "x = [", "]", "{", "}", "= ", '"s"', "'''", "\n",
    "9" * 25, "-" + "9" * 30, "0x" + "f" * 40, "1e9999", "nan", "inf", "[" * 40, "]" * 40,
    "{a=" * 35, "}" * 35, "\x00", "\ufeff", "\r\n", "# c\n", "k.l.m = 2\n", "\\u0000",
])


@few(150)
@given(st.lists(st.one_of(_fragments, st.text(max_size=12)), max_size=30).map("".join))
def test_any_toml_text_is_data_within_limits_or_a_config_error(text):
    try:
        data = tomlerrors.parse_toml(text, Path("p.toml"))
    except ConfigError as exc:
        assert exc.file == "p.toml"
        return
    assert tomlerrors._first_bad(data) == (None, None)


@few(150)
@given(st.recursive(st.one_of(st.integers(min_value=-(10 ** 30), max_value=10 ** 30),
                              st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5),
                              st.booleans(), st.none()),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c,
                                                                        max_size=3),
                    max_leaves=60),
       st.integers(min_value=0, max_value=60))
def test_any_json_document_is_data_within_limits_or_a_config_error(value, depth):
    text = "[" * depth + json.dumps(value) + "]" * depth
    try:
        data = tomlerrors.parse_json(text, Path("m.json"))
    except ConfigError as exc:
        assert exc.file == "m.json"
        return
    assert tomlerrors._first_bad(data) == (None, None)
