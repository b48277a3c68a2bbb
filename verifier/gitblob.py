"""Git object identity: the blob SHA of some bytes, as `git hash-object` computes it."""

from __future__ import annotations

import hashlib


def blob_sha(data: bytes) -> str:
    h = hashlib.sha1(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()
