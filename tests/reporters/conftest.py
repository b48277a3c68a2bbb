"""Reporter tests read one checked-in record (tests/fixtures/reporters/record.json)."""

from __future__ import annotations

import pytest

from tests.reporters.fixture_record import load


@pytest.fixture
def record():
    """The hand-made verification record every reporter test renders."""
    return load()
