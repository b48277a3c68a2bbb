"""Proposal modules, registered here in one place (order = priority).

Each module proposes one kind of claim from a sentence (see `base.py` for the
contract). Earlier modules mark the spans they used, so a later `symbol`
proposal does not repeat them; `runtime` skeletons are proposed only for
sentences no other module drafted."""

from verifier.draft.proposers.base import Env, Proposer  # noqa: F401
from verifier.draft.proposers.call_order import CallOrderProposer
from verifier.draft.proposers.citation import CitationProposer
from verifier.draft.proposers.default import DefaultProposer
from verifier.draft.proposers.enum import EnumProposer
from verifier.draft.proposers.members import MembersProposer
from verifier.draft.proposers.runtime import RuntimeProposer
from verifier.draft.proposers.signature import SignatureProposer
from verifier.draft.proposers.symbol import SymbolProposer

PROPOSERS: list[Proposer] = [
    DefaultProposer(),
    EnumProposer(),
    MembersProposer(),
    SignatureProposer(),
    CallOrderProposer(),
    SymbolProposer(),
    CitationProposer(),
    RuntimeProposer(),       # last: only where nothing static was proposed
]
