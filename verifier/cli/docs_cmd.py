"""`verifier docs --write | --check`: the documentation generated from the registries
(claim kind pages, the kinds table, the lint rules table)."""

from __future__ import annotations

import argparse
from pathlib import Path

from verifier.cli.common import path_arg

HELP = "regenerate (--write) or check (--check) the docs generated from the kind and rule modules"


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="rewrite the generated files")
    g.add_argument("--check", action="store_true", help="exit 1 when a generated file is stale")
    p.add_argument("--root", type=path_arg, default=None,
                   help="project directory holding docs/ (default: the verifier checkout "
                        "this command runs from)")


def run(args: argparse.Namespace) -> int:
    from verifier.cli import output as o
    from verifier.docgen import stale_docs, write_docs
    from verifier.exitcodes import ExitCode

    root = args.root or Path(__file__).resolve().parents[2]
    if args.write:
        written = write_docs(root)
        for path in written:
            o.say(f"wrote {o.rel(path)}")
        o.say(f"{o.plural(len(written), 'file')} regenerated" if written else "docs are current")
        return ExitCode.OK
    stale = stale_docs(root)
    for path in stale:
        o.say(f"stale: {o.rel(path)}")
    o.say(f"{o.plural(len(stale), 'generated file')} stale; run `verifier docs --write`"
          if stale else "docs are current")
    return ExitCode.FINDINGS if stale else ExitCode.OK
