from __future__ import annotations

from collections.abc import Iterator

import pytest

from .oracles import RpmOracle


@pytest.fixture(scope="session")
def rpm_oracle() -> Iterator[RpmOracle]:
    oracle = RpmOracle()
    yield oracle
    oracle.close()
