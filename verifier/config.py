"""User configuration: things that belong to a machine, not to the course.

Mirrors, extra object stores, provider order and the cache location are set
here (never in pins.toml), from, in increasing priority:

1. ``$XDG_CONFIG_HOME/verifier/config.toml`` (or ``~/.config/verifier/config.toml``),
   or the file named by ``$VERIFIER_CONFIG``;
2. environment variables ``VERIFIER_MIRRORS`` (``name=path-or-url;name=...``),
   ``VERIFIER_OBJECTS`` (``path;path``), ``VERIFIER_COURSES`` (``course=path-or-url;...``), ``VERIFIER_PROVIDERS`` (``git,mirror,wheel,objects``),
   ``VERIFIER_OFFLINE=1``, ``VERIFIER_REFRESH=1``, ``VERIFIER_CACHE``, ``VERIFIER_INDEX_URL``;
3. command-line options.

Example config.toml::

    providers = ["mirror", "wheel", "git", "objects"]
    offline = false
    git_timeout = 60          # every git subprocess, fetches included
    download_timeout = 600    # one download from the package index

    [mirrors]
    mujoco = ["/srv/mirrors/mujoco.git"]
    drake = ["file:///srv/mirrors/drake.git"]

    [courses]                                 # local checkouts of course repositories
    mujoco-atlas = "~/src/mujoco-atlas"       # a directory: read as it is
    drake-atlas = "file:///srv/git/drake-atlas.git"   # a git URL: fetched at the pinned commit
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field

from verifier.basemodel import Model
from verifier.errors import ConfigError
from verifier.tomlerrors import read_toml, validate

Provider = Literal["git", "mirror", "wheel", "objects"]
DEFAULT_PROVIDERS: list[Provider] = ["git", "mirror", "wheel", "objects"]


class UserConfig(Model):
    model_config = ConfigDict(extra="forbid")

    providers: list[Provider] = Field(default_factory=lambda: list(DEFAULT_PROVIDERS))
    offline: bool = False
    git_timeout: float = Field(default=60.0, gt=0, description="deadline of every git "
                               "subprocess (fetches included), in seconds")
    download_timeout: float = Field(default=600.0, gt=0, description="deadline of one "
                                    "download from the package index, in seconds")
    refresh: bool = Field(default=False, description="contact the git remotes even when "
                          "the cache holds every needed file at pinned identity")
    cache: str | None = None
    index_url: str | None = Field(default=None, description="package index for wheels "
                                  "(default: pip's own configuration)")
    mirrors: dict[str, list[str]] = Field(default_factory=dict)
    objects: list[str] = Field(default_factory=list,
                               description="extra local git object stores for blob lookup")
    courses: dict[str, str] = Field(default_factory=dict,
                                    description="course name -> local checkout (a directory, "
                                    "read as it is) or git URL (fetched at the pinned commit "
                                    "instead of the course's `repo`)")
    source: list[str] = Field(default_factory=list, exclude=True)
    course_via: dict[str, str] = Field(default_factory=dict, exclude=True,
                                       description="course name -> where its entry was set")


def config_path() -> Path:
    env = os.environ.get("VERIFIER_CONFIG")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "verifier" / "config.toml"


def _parse_pairs(value: str, var: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in filter(None, (p.strip() for p in value.split(";"))):
        name, sep, where = item.partition("=")
        if not sep or not name.strip() or not where.strip():
            raise ConfigError(f"expected 'name=path' entries separated by ';', got {item!r}",
                              key=var)
        out.setdefault(name.strip(), []).append(where.strip())
    return out


def load_config(env: dict[str, str] | None = None) -> UserConfig:
    env = dict(os.environ) if env is None else env
    data: dict = {}
    sources: list[str] = []
    path = config_path()
    if path.exists():
        raw, text = read_toml(path)
        validate(UserConfig, raw, path, text)  # errors name file, line, key
        data = raw
        sources.append(str(path))
    cfg = UserConfig.model_validate(data)
    cfg.course_via = {name: f"[courses] in {path}" for name in cfg.courses}
    if env.get("VERIFIER_MIRRORS"):
        for name, where in _parse_pairs(env["VERIFIER_MIRRORS"], "VERIFIER_MIRRORS").items():
            cfg.mirrors[name] = where + [w for w in cfg.mirrors.get(name, []) if w not in where]
        sources.append("$VERIFIER_MIRRORS")
    if env.get("VERIFIER_COURSES"):
        for name, where in _parse_pairs(env["VERIFIER_COURSES"], "VERIFIER_COURSES").items():
            if len(where) > 1:
                raise ConfigError(f"course {name!r} is given {len(where)} times; expected one "
                                  "checkout per course", key="VERIFIER_COURSES")
            cfg.courses[name] = where[0]
            cfg.course_via[name] = "$VERIFIER_COURSES"
        sources.append("$VERIFIER_COURSES")
    if env.get("VERIFIER_OBJECTS"):
        cfg.objects = [p for p in env["VERIFIER_OBJECTS"].split(";") if p] + cfg.objects
        sources.append("$VERIFIER_OBJECTS")
    if env.get("VERIFIER_PROVIDERS"):
        names = [p.strip() for p in env["VERIFIER_PROVIDERS"].split(",") if p.strip()]
        bad = [n for n in names if n not in DEFAULT_PROVIDERS]
        if bad:
            raise ConfigError(f"unknown provider(s) {', '.join(bad)}; expected some of "
                              f"{', '.join(DEFAULT_PROVIDERS)}", key="VERIFIER_PROVIDERS")
        cfg.providers = names  # type: ignore[assignment]
    if env.get("VERIFIER_OFFLINE", "").lower() in ("1", "true", "yes"):
        cfg.offline = True
    if env.get("VERIFIER_REFRESH", "").lower() in ("1", "true", "yes"):
        cfg.refresh = True
    if env.get("VERIFIER_INDEX_URL"):
        cfg.index_url = env["VERIFIER_INDEX_URL"]
    if env.get("VERIFIER_CACHE"):
        cfg.cache = env["VERIFIER_CACHE"]
    cfg.source = sources
    return cfg
