"""`verifier schema`: the JSON Schema of the verification record (from the pydantic models)."""

from __future__ import annotations

import argparse
import sys

from verifier.cli.common import path_arg

HELP = "print the JSON Schema of the verification record (`verifier record`)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=path_arg, metavar="PATH", help="write it to this file")


def render_schema() -> str:
    import json

    from verifier.report import report_schema

    return json.dumps(report_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def run(args: argparse.Namespace) -> int:
    text = render_schema()
    if args.out:
        from verifier.errors import VerifierError
        from verifier.outputs import out_area

        try:        # a project here: the schema is never written over its lessons or pins
            from verifier.cli.common import project_from

            protected = project_from(args).protected()
        except VerifierError:
            protected = []
        out_area(args.out, protected, directory=False).write(args.out, text)
    else:
        sys.stdout.write(text)
    return 0
