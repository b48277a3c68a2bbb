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
from verifier.basemodel import Model


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


def test_a_deferred_model_still_validates_and_refuses():
    from verifier.results import Finding

    f = Finding(rule="VL101", severity="error", path="a.md", line=3, message="m")
    assert f.line == 3
    with pytest.raises(ValidationError, match="severity"):
        Finding(rule="VL101", severity="nonsense", path="a.md", line=3, message="m")


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
