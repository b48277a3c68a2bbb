"""`verifier claims accept ID...` (drafts become reviewed claims) and `verifier claims
rebind [ID...|--all]` (bind claims to their lesson sentences as they read now)."""

from __future__ import annotations

import argparse

from verifier.cli.common import add_global

HELP = ("manage claim files: `accept ID...` turns drafts into reviewed claims; `rebind "
        "ID...|--all` records the lesson sentence each claim was reviewed against")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="claims_command", metavar="SUBCOMMAND", required=True)
    a = sub.add_parser("accept", help="remove the review = \"draft\" marker of these claims "
                       "(ids as `verifier check` prints them: <course>/<lesson-stem>/<id>)")
    a.add_argument("ids", nargs="+", metavar="ID",
                   help="a claim id: <course>/<lesson-stem>/<id>, or <id> when unique")
    add_global(a)
    r = sub.add_parser("rebind", help="after reviewing claims against their (possibly reworded) "
                       "sentences, bind them to the sentences as they read now "
                       "(claims/claims.lock); a claim whose sentence changes later is `stale` "
                       "until re-bound")
    r.add_argument("ids", nargs="*", metavar="ID",
                   help="claim ids as `verifier check` prints them (<course>/<lesson-stem>/<id>), "
                        "or <course>/<lesson-stem> for every claim of a lesson")
    r.add_argument("--all", action="store_true", help="every claim (and forget removed ones)")
    add_global(r)


def run(args: argparse.Namespace) -> int:
    from verifier.cli import output as o
    from verifier.cli.common import project_from
    from verifier.errors import UsageError
    from verifier.exitcodes import ExitCode

    if args.claims_command == "rebind":
        from verifier.claims.sentences import rebind

        if bool(args.ids) == bool(args.all):
            raise UsageError("claims rebind needs claim ids or --all (not both)")
        project = project_from(args)
        done = rebind(project, None if args.all else args.ids)
        changed = [r for r in done if r.old != r.new]
        for r in changed:
            o.say(f"{'bound' if r.old is None else 're-bound (sentence changed)'}: {r.gid}")
        o.say(f"{len(done)} claim(s) bound, {len(changed)} changed; claims/claims.lock written")
        return ExitCode.OK
    from verifier.draft.write import accept

    project = project_from(args)
    for path, cid in accept(project, args.ids):
        o.say(f"accepted {cid} in {o.rel(path)}")
    return ExitCode.OK
