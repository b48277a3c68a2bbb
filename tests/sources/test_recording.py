"""verifier/sources/recording.py: what a block asked the source layer is recorded once
per question, blocks nest (an inner wrapper gives back the outer one), and afterwards
the layer is as it was."""

from __future__ import annotations

from types import SimpleNamespace

from verifier.claims.memo import track_resolves
from verifier.sources.recording import recording, wrapped


class _Layer:
    def resolve(self, upstream, path, *, needed=True):
        return SimpleNamespace(upstream=upstream, path=path, blob="b" * 40, status=_St(),
                               provider="cache", presence=None, reason="", suggestions=(),
                               expected_blob="b" * 40)

    def presence(self, upstream, path):
        return SimpleNamespace(state=_St(), basis="tree", suggestions=())

    def known_paths(self, upstream):
        return ["a", "b"]

    def pin_tree(self, upstream):
        return {"a": "1"}, "git-tree", []


class _St:
    value = "pinned"


def test_nested_blocks_record_and_restore():
    layer = _Layer()
    with recording(layer) as rec:
        layer.resolve("u", "one.c")
        with track_resolves(layer) as seen:           # the per-claim memo, inside
            layer.resolve("u", "two.c", needed=False)
        layer.resolve("u", "three.c")                 # the outer recording still records
        layer.presence("u", "one.c")
        layer.known_paths("u")
    assert list(seen) == [("u", "two.c")]
    assert sorted(rec.resolves) == [("u", "one.c", True), ("u", "three.c", True),
                                    ("u", "two.c", False)]
    assert list(rec.presence) == [("u", "one.c")] and list(rec.known) == ["u"]
    assert not vars(layer)                            # the class's methods again


def test_wrapped_restores_an_outer_wrapper_and_on_error():
    layer = _Layer()
    calls: list[str] = []

    def tag(name):
        def make(orig):
            def f(*a, **k):
                calls.append(name)
                return orig(*a, **k)
            return f
        return make

    with wrapped(layer, resolve=tag("outer")):
        try:
            with wrapped(layer, resolve=tag("inner")):
                layer.resolve("u", "p")
                raise RuntimeError("x")
        except RuntimeError:
            pass
        layer.resolve("u", "p")
    assert calls == ["inner", "outer", "outer"] and not vars(layer)
