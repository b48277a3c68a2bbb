"""`verifier claims accept ID...`: accept drafted claims (remove their draft marker)."""

from __future__ import annotations

import argparse

from verifier.cli.common import add_global

HELP = "manage claim files: `accept ID...` turns drafts into reviewed claims"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="claims_command", metavar="SUBCOMMAND", required=True)
    a = sub.add_parser("accept", help="remove the review = \"draft\" marker of these claims "
                       "(ids as `verifier check` prints them: <course>/<lesson-stem>/<id>)")
    a.add_argument("ids", nargs="+", metavar="ID",
                   help="a claim id: <course>/<lesson-stem>/<id>, or <id> when unique")
    add_global(a)


def run(args: argparse.Namespace) -> int:
    from verifier.cli import output as o
    from verifier.cli.common import project_from
    from verifier.draft.write import accept
    from verifier.exitcodes import ExitCode

    project = project_from(args)
    for path, cid in accept(project, args.ids):
        o.say(f"accepted {cid} in {o.rel(path)}")
    return ExitCode.OK
