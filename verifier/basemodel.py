"""`Model`: the one base of the verifier's pydantic models.

A model's validation schema is built on its first use (`defer_build`), not when its
module is imported, so a command pays only for the models it validates: a warm
one-lesson `lint` validates about half of them, `verifier --help` none. Everything
else about a model (fields, frozen, extra) is its own `model_config`, merged with
this one. `Record` is the frozen model that refuses unknown keys (configuration files,
claims, records). `tests/test_basemodel.py` holds every model of the package to this
base and builds each one's schema.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Model", "Record"]


class Model(BaseModel):
    model_config = ConfigDict(defer_build=True)


class Record(Model):
    """Frozen, and an unknown key is an error."""

    model_config = ConfigDict(extra="forbid", frozen=True)
