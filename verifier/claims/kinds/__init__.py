"""Claim kind registry: every kind module is imported here, explicitly."""

from verifier.claims.kinds.base import REGISTRY, ClaimKind, CheckContext, Outcome  # noqa: F401

# Kind modules register themselves on import; keep this list explicit and sorted.
# (each engineer adds one import line per kind they implement)
from verifier.claims.kinds import branch  # noqa: F401,E402  VC107
from verifier.claims.kinds import call_order  # noqa: F401,E402  VC106
from verifier.claims.kinds import cases  # noqa: F401,E402  VC108
from verifier.claims.kinds import declared_type  # noqa: F401,E402  VC113
from verifier.claims.kinds import default  # noqa: F401,E402  VC103
from verifier.claims.kinds import doc  # noqa: F401,E402  VC112
from verifier.claims.kinds import enum  # noqa: F401,E402  VC104
from verifier.claims.kinds import expression  # noqa: F401,E402  VC109
from verifier.claims.kinds import members  # noqa: F401,E402  VC105
from verifier.claims.kinds import runtime  # noqa: F401,E402  VC111
from verifier.claims.kinds import signature  # noqa: F401,E402  VC102
from verifier.claims.kinds import symbol  # noqa: F401,E402  VC101
from verifier.claims.kinds import text  # noqa: F401,E402  VC110
