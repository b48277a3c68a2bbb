"""Exit codes of every `verifier` command (documented in README)."""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0            # clean: everything verified (or honestly unavailable)
    FINDINGS = 1      # divergence, stale claim, lint error, or an acquisition failure
    USAGE = 2         # usage or configuration error
    INTERNAL = 3      # a bug in verifier (crash log written to the cache)
    INTERRUPTED = 130
