"""The JSON verification record: sorted keys, stable order, UTF-8, trailing newline."""

from __future__ import annotations

import json

from verifier.report import RunReport

NAME = "json"
SUFFIX = ".json"
IN_VERIFY = True


def to_data(report: RunReport) -> dict:
    return report.model_dump(mode="json")


def render(report: RunReport) -> str:
    return json.dumps(to_data(report), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
