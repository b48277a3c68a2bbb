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
    r.add_argument("--force", action="store_true",
                   help="bind claims rebind refuses (a contradiction, a span gone) anyway; needs "
                        "--note")
    r.add_argument("--note", metavar="TEXT", help="the reviewer's note for --force (kept in "
                   "claims/claims.lock; a claim left without spans gets it as `paraphrase`)")
    r.add_argument("--runtime", choices=("all", "none"), default="all",
                   help="run the runtime checks of re-derived claims before binding them "
                        "(default all; none refuses those claims)")
    add_global(r)
    s = sub.add_parser("says", help="propose `says` (the words of each claim's sentence that "
                       "carry what it checks) for claims that have neither `says` nor "
                       "`paraphrase`; --write adds them to the claim files")
    s.add_argument("ids", nargs="*", metavar="ID",
                   help="claim ids or <course>/<lesson-stem> (default: every claim)")
    s.add_argument("--write", action="store_true", help="add them to the claim files")
    add_global(s)


def run(args: argparse.Namespace) -> int:
    from verifier.cli import output as o
    from verifier.cli.common import project_from
    from verifier.errors import UsageError
    from verifier.exitcodes import ExitCode

    if args.claims_command == "rebind":
        from verifier.claims.rebind import rebind

        if bool(args.ids) == bool(args.all):
            raise UsageError("claims rebind needs claim ids or --all (not both)")
        if args.force and not (args.note or "").strip():
            raise UsageError("--force needs --note \"why the claim may be bound anyway\" (kept "
                             "in claims/claims.lock)")
        project = project_from(args)
        confirm = None
        if args.runtime != "none":
            from verifier.runtime import confirm as run_checks

            def confirm(pairs):
                return run_checks(project, pairs, mode="all")[0]

        done = rebind(project, None if args.all else args.ids,
                      force=args.note.strip() if args.force else None, confirm=confirm)
        changed = [r for r in done.bound if r.old != r.new or r.changes]
        for r in changed:
            what = {"derived": "re-derived from its edited sentence",
                    "forced": "bound by --force"}.get(r.state, "re-bound (sentence changed)"
                                                      if r.old is not None else "bound")
            o.say(f"{what}: {r.gid}" + (f" ({'; '.join(r.changes)})" if r.changes else ""))
        for gid, why in done.refused:
            o.say(f"refused: {gid}: {why}")
        for f in done.files:
            o.say(f"claim file rewritten: {o.rel(f)}")
        o.say(f"{len(done.bound)} claim(s) bound, {len(changed)} changed, {len(done.refused)} "
              "refused; claims/claims.lock written")
        return ExitCode.FINDINGS if done.refused else ExitCode.OK
    if args.claims_command == "says":
        from verifier.claims.saysdraft import migrate

        project = project_from(args)
        rows = migrate(project, args.ids or None, write=args.write)
        for gid, says, paraphrase in rows:
            o.say(f"{gid}: " + (f"says = {says!r}" if says else f"paraphrase: {paraphrase}"))
        with_spans = sum(1 for _, s, _ in rows if s)
        o.say(f"{len(rows)} claim(s) without `says`: {with_spans} with spans proposed, "
              f"{len(rows) - with_spans} paraphrase" + ("; claim files written" if args.write
                                                       else " (--write adds them)"))
        return ExitCode.OK
    from verifier.draft.write import accept

    project = project_from(args)
    for path, cid in accept(project, args.ids):
        o.say(f"accepted {cid} in {o.rel(path)}")
    return ExitCode.OK
