"""`verifier upgrade`: what breaks in the lessons when one upstream pin moves,
and the mechanical part of moving it (`--write`). See docs/upgrade.md."""

from verifier.upgrade.engine import run_upgrade
from verifier.upgrade.fingerprint import fingerprint, fingerprint_lines
from verifier.upgrade.model import LinkStatus, UpgradeReport

__all__ = ["run_upgrade", "fingerprint", "fingerprint_lines", "LinkStatus", "UpgradeReport"]
