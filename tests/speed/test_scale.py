"""The `--scale N` course builder, the scale section, the per-lesson size limit and
the parsed-lesson cache (no timing is asserted)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.claims.simx_project import make_simx
from verifier import bench
from verifier.bench.scale import COPY_MARK, build_scaled_course, copy_name
from verifier.cli.main import main
from verifier.errors import ConfigError
from verifier.facts.cache import fact_cache
from verifier.lessons.cache import _builder, from_plain, load_lesson, load_links, to_plain
from verifier.lessons.model import Link, Sentence, parse_lesson
from verifier.project import LessonDoc, load_project, max_lesson_bytes

CLAIMS = ('[[claim]]\nid = "ok"\nfragment = "sx_advance(model, d)"\nkind = "symbol"\n'
          'path = "include/simx/simx.h"\nsymbol = "sx_advance"\nexpected = true\n\n'
          '[[claim]]\nid = "wrong"\nfragment = "sx_advance(model, d)"\nkind = "symbol"\n'
          'path = "include/simx/simx.h"\nsymbol = "sx_no_such_function"\nexpected = true\n')


def _run(args: list[str], capsys) -> dict:
    main(args)
    return json.loads(capsys.readouterr().out)


def _mix(lint: dict, check: dict) -> Counter:
    return Counter([f"lint:{f['rule']}:{f['severity']}" for f in lint["findings"]]
                   + [f"claim:{c['verdict']}" for c in check["claims"]])


def test_copy_names():
    assert copy_name("docs/a/b.md", 0) == "docs/a/b.md"
    assert copy_name("docs/a/b.md", 3) == "docs/a/b--x3.md"
    assert copy_name("lesson.toml", 2) == "lesson--x2.toml"


def test_scaled_course_has_unique_ids_and_the_same_verdict_mix(tmp_path, monkeypatch, capsys):
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    pins = str(s.root / "pins.toml")
    lint1 = _run(["lint", "--pins", pins, "--format", "json"], capsys)
    check1 = _run(["check", "--pins", pins, "--format", "json"], capsys)
    scaled = build_scaled_course(s.project, 3, tmp_path / "scaled")
    assert (scaled.lessons, scaled.claims) == (3, 6)
    docs = scaled.courses["demo-atlas"] / "docs"
    texts = [(docs / copy_name("lesson.md", k)).read_text() for k in range(3)]
    assert len(set(texts)) == 3                            # every copy is its own blob
    assert texts[1].endswith(COPY_MARK.format(k=1, n=3) + "\n")
    assert texts[1].startswith(texts[0])
    monkeypatch.setenv("VERIFIER_COURSES", scaled.env_courses)
    lint3 = _run(["lint", "--pins", str(scaled.pins), "--format", "json"], capsys)
    check3 = _run(["check", "--pins", str(scaled.pins), "--format", "json"], capsys)
    ids = [c["id"] for c in check3["claims"]]
    assert len(ids) == len(set(ids)) == 6
    assert {c["lesson"] for c in check3["claims"]} == {"docs/lesson.md", "docs/lesson--x1.md",
                                                       "docs/lesson--x2.md"}
    mix1, mix3 = _mix(lint1, check1), _mix(lint3, check3)
    assert mix1["claim:verified"] == 1 and sum(mix1.values()) > 1
    assert mix3 == Counter({k: 3 * v for k, v in mix1.items()})


def test_a_claim_file_without_a_lesson_line_is_refused(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS, header='upstream = "simx"\nlesson = "docs/lesson.md"\n\n')
    build_scaled_course(s.project, 2, tmp_path / "ok")       # any order of the keys
    s.write(CLAIMS, header='upstream = "simx"\n\n[meta]\nlesson = "docs/lesson.md"\n\n')
    with pytest.raises(ValueError, match="lesson"):
        build_scaled_course(s.project, 2, tmp_path / "bad")


def test_scale_section_reports_marginal_costs(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    points = bench.bench_scale(s.project, [2], repeat=1)
    assert [p.scale for p in points] == [1, 2]
    one, two = points
    assert (one.lessons, one.claims, two.lessons, two.claims) == (1, 2, 2, 4)
    assert [r.command for r in two.warm] == ["verifier lint", "verifier check"]
    assert two.outputs_identical is True and two.verdicts_scale_with_n is True
    assert two.per_claim_ms is not None                # 0 permalinks: no per-permalink figure
    assert two.warm_check_no_audit is not None and two.warm_check_no_audit.command == \
        "verifier check"
    assert two.per_claim_no_audit_ms is not None
    assert two.per_permalink_ms is None
    assert all(r.rss_mib and r.rss_mib > 0 for r in two.cold + two.warm)
    assert list((s.project.store.root / "tmp").iterdir()) == []
    names = {t.name for t in bench.evaluate(bench.BenchReport(machine=bench.machine(),
                                                             scale=points))}
    assert "--scale 2 CPU per claim" in names
    per_claim = next(t for t in bench.evaluate(bench.BenchReport(machine=bench.machine(),
                                                                 scale=points))
                     if t.name == "--scale 2 CPU per claim")
    assert "with the memo audit off" in (per_claim.note or "")


# --------------------------------------------------------------------------- size limit

def test_a_lesson_above_the_limit_is_refused(tmp_path, monkeypatch, capsys):
    s = make_simx(tmp_path, monkeypatch)
    lesson = s.project.lessons()[0]
    monkeypatch.setenv("VERIFIER_MAX_LESSON_MB", "0.0001")      # 104 bytes
    assert max_lesson_bytes() == 104
    doc = LessonDoc(lesson.course, lesson.path, lesson.file, lesson.upstreams)
    with pytest.raises(ConfigError, match="above the limit") as e:
        _ = doc.text
    assert e.value.file == str(lesson.file) and "VERIFIER_MAX_LESSON_MB" in e.value.hint
    assert main(["lint", "--pins", str(s.root / "pins.toml")]) == 2
    assert "above the limit of" in capsys.readouterr().err
    monkeypatch.setenv("VERIFIER_MAX_LESSON_MB", "lots")
    with pytest.raises(ConfigError, match="positive number"):
        max_lesson_bytes()
    monkeypatch.delenv("VERIFIER_MAX_LESSON_MB")
    assert max_lesson_bytes() == 2 << 20


# --------------------------------------------------------------------------- lesson cache

TEXT = ("# T\n\nThe `sx_advance` call [steps](https://github.com/o/r/blob/abc/src/a.c#L3) "
        "once. Next `x`.\n\n| a | b |\n|---|---|\n| `c` | d |\n\n<!-- verifier: ignore X -->\n"
        "$x. y$ ok.\n\n```c\nint a;\n```\n")


def test_cached_lesson_equals_the_parse_and_is_a_hit_the_second_time(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    store = s.project.store
    stats = fact_cache(store).stats
    parsed = parse_lesson(TEXT)
    assert from_plain(to_plain(parsed)) == parsed
    first = load_lesson(TEXT, store)
    hits = stats.hits
    again = load_lesson(TEXT, store)
    assert stats.hits == hits + 1 and again == first == parsed
    assert again.sentences[0].code == parsed.sentences[0].code and \
        isinstance(again.sentences[0].code, tuple)
    assert load_links(TEXT, store) == parsed.links and stats.hits == hits + 2
    # another text is a miss
    other = load_lesson(TEXT + "\nMore `y`.\n", store)
    assert stats.hits == hits + 2 and len(other.code_spans) == len(parsed.code_spans) + 1


def test_a_cached_lesson_of_another_shape_is_parsed_again(tmp_path, monkeypatch):
    from verifier.codeversion import code_version
    from verifier.gitblob import blob_sha

    s = make_simx(tmp_path, monkeypatch)
    fc = fact_cache(s.project.store)
    fc.put("lesson", code_version("verifier.lessons.model"), blob_sha(TEXT.encode()),
           {"links": [["only", "two"]]})
    corrupt = fc.stats.corrupt
    assert load_lesson(TEXT, s.project.store) == parse_lesson(TEXT)
    assert fc.stats.corrupt == corrupt + 1
    assert load_lesson(TEXT, s.project.store) == parse_lesson(TEXT)   # rewritten


def test_builder_makes_what_model_construct_makes():
    row = {"href": "h", "text": "t", "line": 3, "block": 1, "label_code": ("a",),
           "code_before": None}
    assert _builder(Link)(dict(row)) == Link.model_construct(**row) == Link(**row)
    sent = {"text": "s", "line": 1, "block": 0, "start": 2, "end": 3, "code": ("c",),
            "links": ()}
    assert _builder(Sentence)(dict(sent)) == Sentence(**sent)
    assert hash(_builder(Link)(dict(row))) == hash(Link(**row))


def test_lint_with_the_fact_cache_off_parses(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    monkeypatch.setattr(fact_cache(s.project.store), "enabled", False)
    assert load_lesson(TEXT, s.project.store) == parse_lesson(TEXT)
    assert not (Path(s.project.store.root) / "facts" / "lesson").exists()


def test_bindings_and_notation_are_copied_for_every_copy(tmp_path, monkeypatch):
    import tomllib

    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    (s.root / "claims" / "claims.lock").write_text(
        'schema = 1\n\n[sentence]\n"demo-atlas/lesson/ok" = "0123456789abcdef"\n')
    (s.root / "claims" / "demo-atlas" / "notation.toml").write_text("# none\n")
    scaled = build_scaled_course(s.project, 3, tmp_path / "scaled")
    lock = tomllib.loads((scaled.root / "claims" / "claims.lock").read_text())
    assert lock["schema"] == 2 and lock["claim"] == {
        f"demo-atlas/lesson{x}/ok": {"sentence": "0123456789abcdef"} for x in ("", "--x1", "--x2")}
    assert (scaled.root / "claims" / "demo-atlas" / "notation.toml").read_text() == "# none\n"
