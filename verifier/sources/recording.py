"""What a block of work asked the source layer, so that a memo can tell later whether
every answer is still the same.

`recording(layer)` wraps the layer's public questions for the duration of a block:
`resolve` (which `text` and `read` go through), `presence`, `known_paths` and
`pin_tree`. Each distinct question is kept once with a fingerprint of its answer
(`Recorder`); `answers_same(layer, deps)` asks every recorded question again and
compares. The memos of lint findings (`verifier/lint/memo.py`) and of whole claim
files (`verifier/claims/filememo.py`) are built on it.

A fingerprint holds everything of an answer that a consumer may act on: for a
resolved file its served blob, the pin's blob, status, provider, presence, reason and
suggestions. Recording nests (each level restores what it replaced), and while
`paused` is non-zero nothing is kept (building a symbol index reads every file; its
identity is recorded instead).
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass, field
from typing import Any



@dataclass
class Recorder:
    """The questions asked of the source layer inside one block, with their answers."""

    resolves: dict[tuple[str, str, bool], list] = field(default_factory=dict)
    presence: dict[tuple[str, str], Any] = field(default_factory=dict)
    known: dict[str, str] = field(default_factory=dict)
    trees: dict[str, Any] = field(default_factory=dict)
    indexes: set[str] = field(default_factory=set)
    paused: int = 0

    def plain(self) -> dict:
        return {"resolves": [[u, p, n, fp] for (u, p, n), fp in sorted(self.resolves.items())],
                "presence": [[u, p, fp] for (u, p), fp in sorted(self.presence.items())],
                "known": sorted(self.known.items()), "trees": sorted(self.trees.items()),
                "indexes": sorted(self.indexes)}


def digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def sf_print(sf) -> list:
    """What a consumer of a resolved file may act on (not its bytes: the blob names them)."""
    return [sf.blob, sf.status.value, sf.provider,
            sf.presence.value if sf.presence is not None else None, sf.reason,
            list(sf.suggestions or ()), sf.expected_blob]


def presence_print(pres) -> list:
    return [pres.state.value, pres.basis, list(pres.suggestions or ())]


def tree_print(got) -> list:
    tree, source, _notes = got
    return [None if tree is None else digest("\n".join(f"{k}\0{v}" for k, v in
                                                        sorted(tree.items()))), source]


@contextlib.contextmanager
def wrapped(layer, **wrappers):
    """`layer`'s methods replaced, for the block, by `wrappers[name](original)`; each is
    restored afterwards to what it was, so blocks nest (an outer block's wrapper is what
    an inner one wraps and gives back)."""
    before = {n: layer.__dict__[n] for n in wrappers if n in layer.__dict__}
    for name, make in wrappers.items():
        setattr(layer, name, make(getattr(layer, name)))
    try:
        yield
    finally:
        for name in wrappers:
            if name in before:
                setattr(layer, name, before[name])
            else:
                with contextlib.suppress(AttributeError):
                    delattr(layer, name)


@contextlib.contextmanager
def recording(layer):
    """Record, while the block runs, every question asked of `layer` (module doc)."""
    rec = Recorder()

    def resolve(orig):
        def ask(upstream: str, path: str, *, needed: bool = True):
            sf = orig(upstream, path, needed=needed)
            if not rec.paused:
                rec.resolves.setdefault((upstream, path, needed), sf_print(sf))
            return sf
        return ask

    def presence(orig):
        def ask(upstream: str, path: str):
            got = orig(upstream, path)
            if not rec.paused:
                rec.presence.setdefault((upstream, path), presence_print(got))
            return got
        return ask

    def known_paths(orig):
        def ask(upstream: str):
            got = orig(upstream)
            if not rec.paused:
                rec.known.setdefault(upstream, digest("\n".join(got)))
            return got
        return ask

    def pin_tree(orig):
        def ask(upstream: str):
            got = orig(upstream)
            if not rec.paused:
                rec.trees.setdefault(upstream, tree_print(got))
            return got
        return ask

    with wrapped(layer, resolve=resolve, presence=presence, known_paths=known_paths,
                 pin_tree=pin_tree):
        yield rec


def answers_same(layer, deps: dict) -> bool:
    """Every question of `deps` (`Recorder.plain()`) answers as it did (`indexes` are
    the caller's to compare)."""
    for u, p, needed, fp in deps["resolves"]:
        if sf_print(layer.resolve(u, p, needed=needed)) != fp:
            return False
    for u, p, fp in deps["presence"]:
        if presence_print(layer.presence(u, p)) != fp:
            return False
    for u, fp in deps["known"]:
        if digest("\n".join(layer.known_paths(u))) != fp:
            return False
    return all(tree_print(layer.pin_tree(u)) == fp for u, fp in deps["trees"])
