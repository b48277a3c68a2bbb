"""`verifier cache`: where the cache is, how big, and cleaning it."""

from __future__ import annotations

import argparse

from verifier.cache import Store, default_cache_dir
from verifier.cli.common import stdout_console
from verifier.exitcodes import ExitCode

HELP = "show or clean the content-addressed cache"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["info", "clean"])
    p.add_argument("--section", default="all",
                   choices=["all", "blobs", "wheels", "git", "facts", "envs", "tmp"],
                   help="what to clean (default: all)")


def run(args: argparse.Namespace) -> int:
    store = Store(getattr(args, "cache", None) or default_cache_dir())
    con = stdout_console()
    if args.action == "info":
        con.print(f"cache: {store.root}\nsize: {store.size() / 1e6:.1f} MB")
    else:
        removed = store.clean(args.section)
        con.print(f"cleaned {len(removed)} section(s) of {store.root}")
    return ExitCode.OK
