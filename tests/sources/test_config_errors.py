"""Bad input gives one clear line naming file, line and problem (exit 2), never a traceback."""

from __future__ import annotations

import json

import pytest

from tests.helpers_upstream import UpstreamSpec, write_pins
from verifier.cli.main import main
from verifier.errors import ConfigError
from verifier.pins import import_manifest, load_pins

GOOD = "9ea3cdfcae93bf2cc4dc0e1a1627c5a39a1e06e5"


def _pins(tmp_path, body: str):
    p = tmp_path / "pins.toml"
    p.write_text(body)
    return p


def test_malformed_toml_names_file_and_line(tmp_path):
    p = _pins(tmp_path, 'schema = 1\n[upstream.mujoco]\nrepo = "x"\ncommit = \n')
    with pytest.raises(ConfigError) as e:
        load_pins(p)
    assert e.value.file == str(p) and e.value.line == 4
    assert "malformed TOML" in e.value.render()


def test_bad_sha_names_key_and_line(tmp_path):
    p = _pins(tmp_path, f'[upstream.mujoco]\nrepo = "https://github.com/a/b"\n'
                        f'version = "1"\ncommit = "{GOOD[:7]}"\n')
    with pytest.raises(ConfigError) as e:
        load_pins(p)
    assert e.value.key == "upstream.mujoco.commit" and e.value.line == 4
    assert "40 lowercase hex" in e.value.render()


def test_unknown_key_and_unknown_course_upstream(tmp_path):
    p = _pins(tmp_path, f'[upstream.m]\nrepo = "u"\ncommit = "{GOOD}"\nversion = "1"\n'
                        'colour = "red"\n')
    with pytest.raises(ConfigError) as e:
        load_pins(p)
    assert e.value.key == "upstream.m.colour" and "unknown key" in e.value.render()
    p = _pins(tmp_path, f'[upstream.m]\nrepo = "u"\ncommit = "{GOOD}"\nversion = "1"\n'
                        '[course.c]\npath = "x"\nupstreams = ["nope"]\n')
    with pytest.raises(ConfigError, match="unknown upstream 'nope'"):
        load_pins(p)


def test_manifest_for_another_commit_is_refused(tmp_path):
    pins = load_pins(write_pins(tmp_path, {"demo": UpstreamSpec("https://github.com/x/demo",
                                                                 GOOD)}))
    from verifier.pins import Lock

    m = tmp_path / "sources.json"
    m.write_text(json.dumps({"upstream": "x/demo", "commit": "a" * 40, "files": []}))
    with pytest.raises(ConfigError, match="refusing to import blobs of another version"):
        import_manifest(Lock(), pins, m)
    m.write_text(json.dumps({"upstream": "x/demo", "commit": GOOD,
                             "files": [{"path": "../etc/passwd", "git_blob": "1" * 40}]}))
    with pytest.raises(ConfigError, match="not a safe relative path"):
        import_manifest(Lock(), pins, m)
    m.write_text("{not json")
    with pytest.raises(ConfigError, match="malformed JSON"):
        import_manifest(Lock(), pins, m)


def test_cli_exit_codes_and_one_line_errors(tmp_path, capsys):
    p = _pins(tmp_path, "[upstream.m\n")
    assert main(["sources", "--pins", str(p)]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "pins.toml:1" in err and "Traceback" not in err
    good = write_pins(tmp_path, {"demo": UpstreamSpec("https://github.com/x/demo", GOOD)})
    assert main(["sources", "--pins", str(good), "--upstream", "nope"]) == 2
    assert "unknown upstream 'nope'" in capsys.readouterr().err
    assert main(["no-such-command"]) == 2


def test_bad_user_config(tmp_path, monkeypatch, capsys):
    cfg = tmp_path / "config.toml"
    cfg.write_text('providers = ["git", "ftp"]\n')
    monkeypatch.setenv("VERIFIER_CONFIG", str(cfg))
    good = write_pins(tmp_path, {"demo": UpstreamSpec("https://github.com/x/demo", GOOD)})
    assert main(["sources", "--pins", str(good)]) == 2
    err = capsys.readouterr().err
    assert "config.toml:1" in err and "providers" in err
    monkeypatch.delenv("VERIFIER_CONFIG")
    monkeypatch.setenv("VERIFIER_MIRRORS", "just-a-path")
    assert main(["sources", "--pins", str(good)]) == 2
    assert "VERIFIER_MIRRORS" in capsys.readouterr().err
