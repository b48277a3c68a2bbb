"""Proposal modules, registered here in one place (order = priority).

Each module reads one kind of assertion from a sentence and proposes the claim that
checks it (see `base.py` for the contract). Earlier modules mark the names they used
(`Sentence.used`), so a later module does not claim the same name again (a plain
`symbol` claim least of all); `runtime` skeletons are proposed only for sentences no
other module drafted."""

from verifier.draft.proposers.base import Env, Proposer  # noqa: F401
from verifier.draft.proposers.absence import AbsenceProposer
from verifier.draft.proposers.attribution import AttributionProposer
from verifier.draft.proposers.call_order import CallOrderProposer
from verifier.draft.proposers.citation import CitationProposer
from verifier.draft.proposers.composition import CompositionProposer
from verifier.draft.proposers.default import DefaultProposer
from verifier.draft.proposers.enum import EnumProposer
from verifier.draft.proposers.members import MembersProposer
from verifier.draft.proposers.order import OrderProposer
from verifier.draft.proposers.parts import PartsProposer
from verifier.draft.proposers.ports import PortsProposer
from verifier.draft.proposers.runtime import RuntimeProposer
from verifier.draft.proposers.signature import SignatureProposer
from verifier.draft.proposers.size import SizeProposer
from verifier.draft.proposers.symbol import SymbolProposer
from verifier.draft.proposers.type import TypeProposer

PROPOSERS: list[Proposer] = [
    DefaultProposer(),       # values: a default
    CompositionProposer(),   # values: a flag constant's parts (table rows)
    EnumProposer(),          # values: an enum constant / macro
    SizeProposer(),          # values: an array's size (documented shape)
    TypeProposer(),          # types: a field's declared element type
    OrderProposer(),         # orders: a call's positional parameters, enumerators
    PartsProposer(),         # orders: the angular or the linear part of a 6-vector first
    PortsProposer(),         # orders: the ports a system declares
    MembersProposer(),       # several members of one container
    AttributionProposer(),   # `C.m`, "`C` 的 `m`": m is a member of C
    AbsenceProposer(),       # "`C` 没有 `m`": m is not
    SignatureProposer(),     # keywords of a call, parameters the sentence names
    CallOrderProposer(),     # "A 先调用 B 再 C", `a→b→c`
    SymbolProposer(),        # a name exists (or, said absent, does not)
    CitationProposer(),      # the definition a permalink cites
    RuntimeProposer(),       # last: only where nothing static was proposed
]
