"""`verifier rules`: the lint rules with their codes and docs."""

from __future__ import annotations

import argparse
import json

from rich.markup import escape
from rich.table import Table

from verifier.cli.common import stdout_console
from verifier.exitcodes import ExitCode
from verifier.lint import rule_table

HELP = "list lint rules (code, name, what each checks)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=["rich", "json"], default="rich")


def run(args: argparse.Namespace) -> int:
    rows = rule_table()
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return ExitCode.OK
    t = Table(title="verifier lint rules")
    for col in ("code", "name", "checks"):
        t.add_column(col, overflow="fold")
    for r in rows:
        t.add_row(r["code"], r["name"], escape(r["doc"]))
    stdout_console().print(t)
    return ExitCode.OK
