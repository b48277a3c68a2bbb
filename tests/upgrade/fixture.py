"""A fixture upstream with two versions and a course citing the first one.

Version 1 -> version 2 makes known changes:
- pkg/core.py: 4 lines inserted above `alpha` (alpha moves down 4 lines,
  unchanged); `beta` gets one edited line; `gamma` is moved below `delta`
  (moved far, unchanged); a one-line constant stays put but shifts;
- src/engine.c: untouched (same blob);
- pkg/old_name.py: renamed to pkg/new_name.py with two lines added on top;
- pkg/gone.py: deleted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.helpers_upstream import FixtureRepo, UpstreamSpec, make_git_repo, write_pins

CORE_V1 = '''"""Demo core module."""

LIMIT = 16


def alpha(x, y=2):
    """Alpha adds."""
    total = x + y
    return total


def beta(frames, rate=0.5):
    """Beta scales."""
    scaled = [f * rate for f in frames]
    return scaled


def gamma(items):
    """Gamma counts the items that are truthy."""
    count = 0
    for it in items:
        if it:
            count += 1
    return count


def delta():
    return None
'''

CORE_V2 = '''"""Demo core module."""

import math

LIMIT = 16

# helpers follow


def alpha(x, y=2):
    """Alpha adds."""
    total = x + y
    return total


def beta(frames, rate=0.5):
    """Beta scales."""
    scaled = [math.floor(f * rate) for f in frames]
    return scaled


def delta():
    return None


def gamma(items):
    """Gamma counts the items that are truthy."""
    count = 0
    for it in items:
        if it:
            count += 1
    return count
'''

ENGINE_C = """#include <stdio.h>

int demo_step(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) {
    acc += i;
  }
  return acc;
}
"""

OLD_NAME_V1 = '''class Sensor:
    """A sensor with a name and a rate."""

    def __init__(self, name, rate=60):
        self.name = name
        self.rate = rate

    def describe(self):
        return f"{self.name}@{self.rate}"
'''

OLD_NAME_V2 = '# moved from pkg/old_name.py\n\n' + OLD_NAME_V1

GONE_V1 = '''def legacy_entry_point(a, b):
    """Kept for compatibility."""
    return a * b + 1
'''

# (line of the cited range in v1) -> expectation, used by the tests
# core.py v1: LIMIT=L3, alpha=L6-L9, beta=L12-L15, gamma=L18-L24, delta=L27-L28
# core.py v2: LIMIT=L5, alpha=L10-L13, beta=L16-L19, delta=L22-L23, gamma=L26-L32


@dataclass
class Fixture:
    repo: FixtureRepo
    v1: str
    v2: str
    root: Path
    lesson: Path
    pins: Path

    def url(self, path: str, frag: str = "", sha: str | None = None) -> str:
        return (f"https://github.com/demo-org/demo/blob/{sha or self.v1}/{path}"
                + (f"#{frag}" if frag else ""))


LESSON = """# Demo lesson

The adder is [alpha]({alpha}) and the limit is [LIMIT]({limit}).
Scaling happens in [beta]({beta}); counting in [gamma]({gamma}).

| what | where |
|---|---|
| the C loop | [demo_step]({engine}) |
| the sensor | [Sensor]({sensor}) |
| legacy | [legacy]({gone}) |

A whole file: [core.py]({whole}). Again alpha: [here]({alpha}).
An unrelated link: [elsewhere](https://github.com/other/repo/blob/main/x.py#L1).
"""


def build(tmp_path: Path, *, remote: bool = False) -> Fixture:
    """remote=False: pins name github.com/demo-org/demo (serve it through a mirror);
    remote=True: pins name the fixture repo's file:// URL, which ends in demo-org/demo
    so lessons' github.com/demo-org/demo links belong to it (git provider)."""
    where = tmp_path / "demo-org" / "demo" if remote else tmp_path / "upstream"
    repo = make_git_repo(where, {
        "pkg/core.py": CORE_V1, "src/engine.c": ENGINE_C, "pkg/old_name.py": OLD_NAME_V1,
        "pkg/gone.py": GONE_V1})
    v1 = repo.head
    v2 = repo.commit({"pkg/core.py": CORE_V2, "pkg/old_name.py": None,
                      "pkg/new_name.py": OLD_NAME_V2, "pkg/gone.py": None}, "v2")
    root = tmp_path / "project"
    course = root / "course" / "docs"
    course.mkdir(parents=True)
    fx = Fixture(repo, v1, v2, root, course / "lesson.md", root / "pins.toml")
    text = LESSON.format(
        alpha=fx.url("pkg/core.py", "L6-L9"), limit=fx.url("pkg/core.py", "L3"),
        beta=fx.url("pkg/core.py", "L12-L15"), gamma=fx.url("pkg/core.py", "L18-L24"),
        engine=fx.url("src/engine.c", "L3-L9"), sensor=fx.url("pkg/old_name.py", "L4-L6"),
        gone=fx.url("pkg/gone.py", "L1-L3"), whole=fx.url("pkg/core.py"))
    fx.lesson.write_bytes(text.encode())
    write_pins(root, {"demo": UpstreamSpec(url=repo.url, commit=v1)},
               courses={"course": ("course", ["demo"])})
    # the pins helper names the repo by its file:// URL; lessons cite github.com/demo-org/demo
    if not remote:
        pins_text = fx.pins.read_text().replace(f'repo = "{repo.url}"',
                                                'repo = "https://github.com/demo-org/demo"')
        fx.pins.write_text(pins_text)
    return fx
