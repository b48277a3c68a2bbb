"""Every pydantic model of the package derives from `verifier.basemodel.Model`
(schemas built on first use), and the CLI keeps third-party pydantic plugins out."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import subprocess
import sys

import pytest
from pydantic import BaseModel, ValidationError

import verifier
from verifier.basemodel import Model, Record


def _models() -> list[type]:
    out = []
    for info in pkgutil.walk_packages(verifier.__path__, "verifier."):
        if info.name == "verifier.__main__":     # runs the CLI
            continue
        mod = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(mod, inspect.isclass):
            if issubclass(obj, BaseModel) and obj.__module__ == info.name:
                out.append(obj)
    return out


def test_every_model_derives_from_the_base():
    models = _models()
    assert len(models) > 30
    stray = [f"{m.__module__}.{m.__qualname__}" for m in models
             if m is not Model and not issubclass(m, Model)]
    assert stray == []
    assert all(m.model_config.get("defer_build") for m in models)


def test_every_deferred_schema_builds():
    """A deferred schema is built on first use: a forward reference that cannot be
    resolved would surface only in the run that first validates the model, so every
    model is built here."""
    for m in _models():
        if m in (Model, Record):
            continue
        m.model_rebuild(force=True)
        assert m.__pydantic_complete__, f"{m.__module__}.{m.__qualname__}"


def test_a_record_is_frozen_and_refuses_unknown_keys():
    from verifier.lint.config import Suppress

    fields = {"lesson": "c/a.md", "names": ["mj_step"], "reason": "named in prose"}
    s = Suppress.model_validate(fields)
    with pytest.raises(ValidationError, match="Extra inputs"):
        Suppress.model_validate({**fields, "nonsense": 1})
    with pytest.raises(ValidationError, match="frozen"):
        s.lesson = "c/b.md"


def test_cli_disables_pydantic_plugins_unless_the_user_chose():
    code = ("import os, sys\n"
            "from verifier.cli.main import main\n"
            "main(['--version'])\n"
            "print(os.environ.get('PYDANTIC_DISABLE_PLUGINS'))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out[-1] == "__all__"
    env["PYDANTIC_DISABLE_PLUGINS"] = "logfire"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out[-1] == "logfire"
