"""`paused()`: the cyclic garbage collector held off while a large structure is built.

CPython starts a collection every time some hundreds of container objects have been
allocated, whether or not they can form cycles, and each collection walks the young
objects and, now and then, every live one. Building the results of 17,750 claims, or
loading their claim files, allocates millions of containers that live on: with the
collector running, a warm `check` at `--scale 10` took 0.5 s more CPU (of ~3 s).
What is built in these blocks (pydantic models, dicts and lists of plain data) holds
no reference cycles, so nothing collectable is left waiting; the collector runs again
after the block. Mercurial wraps its large parses in the same way (`util.nogc`).
Nested blocks leave the collector to the outermost one.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
