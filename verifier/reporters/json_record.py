"""The JSON verification record: sorted keys, stable order, UTF-8, trailing newline."""

from __future__ import annotations

from verifier import jsontext
from verifier.report import RunReport

NAME = "json"
SUFFIX = ".json"
IN_VERIFY = True


def to_data(report: RunReport) -> dict:
    return report.model_dump(mode="json")


def render(report: RunReport) -> str:
    return jsontext.dumps(to_data(report), sort_keys=True) + "\n"   # = json.dumps(indent=2)
