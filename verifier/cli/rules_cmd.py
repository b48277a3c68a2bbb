"""`verifier rules`: the lint rules with their codes and docs.

Starts fast: the rules are read from their modules' source (`verifier.lint_catalog`),
not imported, and printed without rich."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import textwrap

from verifier.cli.common import TEXT, add_format

HELP = "list lint rules (code, name, severity, what each checks)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_format(p, [TEXT, "json"], aliases={"rich": TEXT})


def run(args: argparse.Namespace) -> int:
    from verifier.lint_catalog import rule_catalog

    rows = rule_catalog()
    if args.format == "json":
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return 0
    width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 120))
    name_w = max(len(r["name"]) for r in rows)
    sev_w = max(len(r["severity"]) for r in rows)
    indent = 6 + name_w + 2 + sev_w + 2
    lines = [f"{'code':<6}{'name':<{name_w + 2}}{'severity':<{sev_w + 2}}checks"]
    for r in rows:
        body = textwrap.wrap(r["doc"], width=max(30, width - indent)) or [""]
        lines.append(f"{r['code']:<6}{r['name']:<{name_w + 2}}{r['severity']:<{sev_w + 2}}"
                     f"{body[0]}")
        lines.extend(" " * indent + b for b in body[1:])
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
