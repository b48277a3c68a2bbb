"""The audit sample of a memo: which hits of this run are re-derived and compared.

A memoised result (a claim's outcome, a lesson's lint findings) is only a shortcut:
every run re-derives a sample of its hits and compares. `VERIFIER_MEMO_AUDIT` is the
fraction (default 0.05; 1 re-derives every hit, 0 none). The claim memo always
audits the first hit of a run as well; the lint memo does not (`first=False`): a
one-lesson lint is the editor's case, and auditing its only hit would make the memo
useless there; `VERIFIER_MEMO_AUDIT_SEED` makes the sample reproducible (tests). One
state per memo and fact cache (`audit_state(fc, name)`), so a mismatch in one memo
distrusts that memo only.

**Budget.** A re-derivation costs what a first check costs (for a claim file ~80 ms
here, for a lesson's lint ~15 ms), so a fixed share makes every warm run's cost grow
with the course: at ten times the course, 5 % was ~1.1 s of a 3.5 s warm `lint` +
`check`. What the audit buys is a chance, every run, to meet a wrong entry (a forged
one, or one whose recorded dependencies missed an input), and the chance that a given
entry is re-derived within k runs is what matters, not the share per run. So a memo
that knows how many entries it will meet (`expect(n)`: the claim files of a check, the
lessons of a lint) samples each with `min(fraction, budget / n)`: uniformly, at most
`budget` expected re-derivations per run (`VERIFIER_MEMO_AUDIT_BUDGET`, default 4;
`0` or a fraction of 1 means no budget). The shared course (24 claim files, 60
lessons) is below it: 1.2 and 3 expected at 5 %. A run over 2,400 lessons still
re-derives any given lesson within ~600 runs with probability 1 - 1/e.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

DEFAULT_AUDIT = 0.05   # measured on the course: 0.1 cost 0.13 s of a 0.24 s warm check
DEFAULT_BUDGET = 4     # expected re-derivations per memo and run, at most (see `expect`)


class AuditState:
    """Per memo, store and process: the audit sample and whether the memo was found wrong."""

    def __init__(self, first: bool = True) -> None:
        self.first = first
        seed = os.environ.get("VERIFIER_MEMO_AUDIT_SEED")
        self.salt = hashlib.sha256(seed.encode()).digest() if seed else secrets.token_bytes(32)
        try:
            self.fraction = float(os.environ.get("VERIFIER_MEMO_AUDIT", DEFAULT_AUDIT))
        except ValueError:
            self.fraction = DEFAULT_AUDIT
        try:
            self.budget = int(os.environ.get("VERIFIER_MEMO_AUDIT_BUDGET", DEFAULT_BUDGET))
        except ValueError:
            self.budget = DEFAULT_BUDGET
        self.rate = self.fraction      # the fraction in force (lowered by `expect`)
        self.hits = 0
        self.distrusted = False
        self.bypassed = False   # while set, the memo is neither read nor written (an outer
        # memo's audit re-derives its hit from the sources: verifier/claims/filememo.py)

    def expect(self, n: int) -> None:
        """This run will meet about `n` entries: sample each with min(fraction,
        budget / n) (module doc). Not below the fraction when every hit is asked for."""
        self.rate = self.fraction
        if self.budget > 0 and 0 < self.fraction < 1 and n > 0:
            self.rate = min(self.fraction, self.budget / n)

    def sampled(self, key: str) -> bool:
        self.hits += 1
        if self.fraction <= 0:
            return False
        if (self.first and self.hits == 1) or self.fraction >= 1:
            return True
        h = hmac.digest(self.salt, key.encode(), "sha256")
        return int.from_bytes(h[:4], "big") < self.rate * 2 ** 32


def audit_state(fc, name: str, first: bool = True) -> AuditState:
    """The audit state of memo `name` on fact cache `fc` (created on first use;
    `first`: the first hit is always audited)."""
    states = getattr(fc, "audit_states", None)
    if states is None:
        states = fc.audit_states = {}
    if name not in states:
        states[name] = AuditState(first)
    return states[name]
