"""`verifier schema`: the JSON Schema of the verification record (from the pydantic models)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from verifier.report import report_schema

HELP = "print the JSON Schema of the verification record (`verifier record`)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, metavar="PATH", help="write it to this file")


def render_schema() -> str:
    return json.dumps(report_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def run(args: argparse.Namespace) -> int:
    text = render_schema()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
