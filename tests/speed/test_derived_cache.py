"""Small derived tables kept in the fact cache by the blob of the text they come from:
the files a lesson cites (`lessons/cited.py`), a lesson's sentence blocks
(`claims/sentences.py`, the sentences joined for the fragment search) and a Python file's docstring table (`claims/kinds/_docs.py`).

Each must give what computing it gives, be used on a hit (nothing recomputed), miss
when the text or the part of the pins it reads changes, and fall back to computing
when an entry has another shape."""

from __future__ import annotations

import pytest

from tests.helpers_upstream import UpstreamSpec, write_pins
from verifier.cache import Store
from verifier.facts.cache import fact_cache
from verifier.gitblob import blob_sha
from verifier.project import load_project

SHA = "1" * 40
LESSON = f"""# 传感器

`mj_step` 推进一步；见 [mj_step](https://github.com/example/demo/blob/{SHA}/src/engine.c#L10-L12)。
另见 [mjData](https://github.com/example/demo/blob/{SHA}/include/demo.h#L3)。

外部链接 [docs](https://example.org/x) 不算。
"""
PY = '''"""Module doc."""


def step(model, data):
    """Advance the simulation by one step."""
    return data


class Model:
    """A model."""

    def __init__(self):
        self.nq: int = 0
        """Number of generalized coordinates."""
'''


@pytest.fixture
def project(tmp_path):
    course = tmp_path / "course" / "docs"
    course.mkdir(parents=True)
    (course / "sensors.md").write_text(LESSON, encoding="utf-8")
    write_pins(tmp_path, {"demo": UpstreamSpec(url="https://github.com/example/demo", commit=SHA)},
               {"demo-course": ("course", ["demo"])})
    return load_project(tmp_path / "pins.toml", cache=tmp_path / "cache")


def _entries(store: Store, section: str) -> list:
    root = fact_cache(store).root / section
    return sorted(root.rglob("*.bin")) if root.is_dir() else []


def test_cited_files_are_kept_and_used(project, monkeypatch):
    (doc,) = project.lessons()
    want = [("demo", "include/demo.h"), ("demo", "src/engine.c")]
    assert project.cited_files() == want
    assert len(_entries(project.store, "cited")) == 1
    # a new run: the entry answers without the lesson's links being built
    fresh = load_project(project.pins.path, cache=project.store.root)
    import verifier.lessons.cache as lc

    monkeypatch.setattr(lc, "load_links", lambda *a, **k: pytest.fail("links were built"))
    assert fresh.cited_files() == want
    assert fresh.cited_by(doc) == [["demo", "src/engine.c"], ["demo", "include/demo.h"]]


def test_cited_entry_follows_the_text_and_the_pins(project, tmp_path):
    project.cited_files()
    (doc,) = project.lessons()
    doc.file.write_text(LESSON.replace("src/engine.c", "src/other.c"), encoding="utf-8")
    again = load_project(project.pins.path, cache=project.store.root)
    assert again.cited_files() == [("demo", "include/demo.h"), ("demo", "src/other.c")]
    # the upstream's repository renamed in pins.toml: the links no longer cite it
    pins = tmp_path / "pins.toml"
    pins.write_text(pins.read_text().replace("example/demo", "example/renamed"))
    moved = load_project(pins, cache=project.store.root)
    assert moved.cited_files() == []


def test_cited_entry_of_another_shape_is_recomputed(project):
    from verifier.codeversion import code_version
    from verifier.lessons import cited

    (doc,) = project.lessons()
    blob = blob_sha(doc.text.encode("utf-8"))
    fact_cache(project.store).put(cited.EXTRACTOR, code_version(cited.__name__, "verifier.pins"),
                                  blob, {"not": "a list"}, cited._query(project.pins))
    assert project.cited_files() == [("demo", "include/demo.h"), ("demo", "src/engine.c")]


def test_sentence_index_is_kept_and_equals_the_computed_one(project, monkeypatch):
    from verifier.claims import sentences

    (doc,) = project.lessons()
    store = project.store
    computed = sentences._join(sentences._blocks(doc.text, store))
    sentences._joined.cache_clear()
    assert sentences._joined(doc.text, store) == computed
    assert len(_entries(store, sentences.JOINED)) == 1
    sentences._joined.cache_clear()
    monkeypatch.setattr(sentences, "_blocks", lambda *a: pytest.fail("recomputed"))
    assert sentences._joined(doc.text, store) == computed
    assert "推进一步" in sentences.sentence_of(doc.text, "推进一步", store=store)


def test_sentence_index_of_another_shape_is_recomputed(project):
    from verifier.claims import sentences
    from verifier.codeversion import code_version

    (doc,) = project.lessons()
    blob = blob_sha(doc.text.encode("utf-8"))
    fc = fact_cache(project.store)
    for bad in ([["only one field"]], ["text", [[1, 2]]], {"a": 1}):
        fc.put(sentences.JOINED, code_version(sentences.__name__), blob, bad)
        sentences._joined.cache_clear()
        assert sentences._joined(doc.text, project.store) == sentences._joined(doc.text, None)


def test_python_docstring_table_is_kept(tmp_path, monkeypatch):
    from verifier.claims.kinds import _docs

    store = Store(tmp_path / "cache")
    want = _docs._py_docs(PY)
    assert want[0][0] == "Module doc." and any("generalized" in d for d, _, _ in want.values())
    _docs.py_docs.cache_clear()
    assert _docs.py_docs(PY, store) == want
    assert len(_entries(store, _docs.PY_DOCS)) == 1
    _docs.py_docs.cache_clear()
    monkeypatch.setattr(_docs, "_py_docs", lambda text: pytest.fail("parsed again"))
    assert _docs.py_docs(PY, store) == want
    # another text is another entry
    monkeypatch.undo()
    _docs.py_docs.cache_clear()
    other = PY.replace("one step", "two steps")
    assert _docs.py_docs(other, store) == _docs._py_docs(other)
    assert len(_entries(store, _docs.PY_DOCS)) == 2


def test_python_docstring_table_of_another_shape_is_parsed(tmp_path):
    from verifier.claims.kinds import _docs
    from verifier.codeversion import code_version

    store = Store(tmp_path / "cache")
    fact_cache(store).put(_docs.PY_DOCS, code_version(_docs.__name__),
                          blob_sha(PY.encode("utf-8")), [["x", 1]])
    _docs.py_docs.cache_clear()
    assert _docs.py_docs(PY, store) == _docs._py_docs(PY)


def test_checked_claims_lock_is_kept_and_follows_its_bytes(tmp_path, monkeypatch):
    from verifier.claims import lock as lk
    from verifier.claims.follow import Reviewed
    from verifier.errors import ConfigError

    store = Store(tmp_path / "cache")
    root = tmp_path / "claims"
    root.mkdir()
    lock = root / lk.LOCK_NAME
    one = Reviewed("0123456789abcdef", (("设定 h=", "0.002", " s"),), (("不", 1),), 3, "a" * 40)
    lock.write_text(lk.dump_bindings({"c/a/x": one}), encoding="utf-8")
    assert lk.load_bindings(root, store).entries == {"c/a/x": one}
    assert len(_entries(store, lk.LOCK_SECTION)) == 1
    import verifier.tomlerrors as te

    real_parse = te.parse_toml
    monkeypatch.setattr(te, "parse_toml", lambda *a: pytest.fail("parsed again"))
    assert lk.load_bindings(root, store).entries == {"c/a/x": one}
    monkeypatch.setattr(te, "parse_toml", real_parse)
    # other bytes: parsed and checked again, and a bad lock is still refused
    two = Reviewed("fedcba9876543210")
    lock.write_text(lk.dump_bindings({"c/a/x": two}), encoding="utf-8")
    assert lk.load_bindings(root, store).entries == {"c/a/x": two}
    lock.write_text('schema = 1\n[sentence]\n"c/a/x" = "not a hash"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="16-hex-digit"):
        lk.load_bindings(root, store)
    lock.write_text('schema = 2\n[claim]\n"c/a/x" = { sentence = "0123456789abcdef", '
                    'spans = [["a", 1, "b"]] }\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="spans"):
        lk.load_bindings(root, store)
    # a schema-1 lock still reads (entries without spans)
    lock.write_text('schema = 1\n[sentence]\n"c/a/x" = "0123456789abcdef"\n', encoding="utf-8")
    assert lk.load_bindings(root, store).entries == {"c/a/x": Reviewed("0123456789abcdef")}
