"""A small hermetic project for the record builder: one upstream (a local git repository
served over file://, like a GitHub remote), two courses that share a lesson name, a claim
file. All text is this project's own (shaped like the real course and upstreams)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.helpers_upstream import FixtureRepo, make_git_repo

UPSTREAM = {
    "src/collide.c": "/* demo collision */\nint demo_collide(int a, int b) {\n"
                     "  return a - b;\n}\n",
    "python/demo/api.py": "def step(model, data):\n    \"\"\"Advance one step.\"\"\"\n"
                          "    return data\n",
}


def contact(sha: str, course: str) -> str:
    return (f"# 接触（{course}）\n\n"
            "`demo_collide` 计算两个几何体的距离，见 "
            f"[demo_collide](https://github.com/example/demo/blob/{sha}/src/collide.c#L2-L4)。\n\n"
            "Python 封装 `step(model, data)` 推进一步，见 "
            f"[api.py](https://github.com/example/demo/blob/{sha}/python/demo/api.py#L1-L3)。\n\n"
            f"旧文件 [gone.c](https://github.com/example/demo/blob/{sha}/src/gone.c#L1) 已删除。\n")


CLAIMS = """lesson = "docs/contact.md"
upstream = "demo"

[[claim]]
id = "collide-exists"
fragment = "`demo_collide` 计算两个几何体的距离"
kind = "symbol"
path = "src/collide.c"
symbol = "demo_collide"
expected = true
"""


@dataclass
class Project:
    root: Path
    pins: Path
    upstream: FixtureRepo

    def load(self, **kw):
        from verifier.project import load_project

        return load_project(self.pins, **kw)


def make_project(tmp: Path) -> Project:
    up = make_git_repo(tmp / "net" / "example" / "demo", UPSTREAM)
    root = tmp / "proj"
    for course in ("alpha-atlas", "beta-atlas"):
        docs = root / "courses" / course / "docs"
        docs.mkdir(parents=True)
        (docs / "contact.md").write_text(contact(up.head, course), encoding="utf-8")
    guide = root / "courses" / "beta-atlas" / "docs" / "guide"
    guide.mkdir()
    (guide / "intro.md").write_text("# 导读\n\n从 [接触](../contact.md) 开始。\n",
                                    encoding="utf-8")
    (root / "claims" / "alpha-atlas").mkdir(parents=True)
    (root / "claims" / "alpha-atlas" / "contact.toml").write_text(CLAIMS, encoding="utf-8")
    pins = root / "pins.toml"
    pins.write_text(
        f'schema = 1\n\n[upstream.demo]\nrepo = "{up.url}"\ncommit = "{up.head}"\n'
        'version = "1.0.0"\nlanguages = ["c", "python"]\n\n'
        '[course.alpha-atlas]\npath = "courses/alpha-atlas"\nupstreams = ["demo"]\n\n'
        '[course.beta-atlas]\npath = "courses/beta-atlas"\nupstreams = ["demo"]\n',
        encoding="utf-8")
    return Project(root, pins, up)
