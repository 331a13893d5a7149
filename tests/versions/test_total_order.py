"""Every scheme orders any mix of valid and invalid strings totally and deterministically."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anitrack_core.versions import (
    CalendarScheme,
    Pep440Scheme,
    RpmScheme,
    SemanticScheme,
    VersionRules,
    VersionScheme,
)

from .strategies import (
    CALENDAR_PATTERN,
    any_text,
    calendar_strings,
    pep440_strings,
    rpm_strings,
    semver_strings,
)

RULES = {"prefix": "release-;v", "pre_release_filter": "rc;nightly"}
SCHEMES: dict[str, tuple[VersionScheme, st.SearchStrategy[str]]] = {
    "RPM": (RpmScheme(VersionRules(**RULES)), rpm_strings()),
    "Semantic": (SemanticScheme(VersionRules(**RULES)), semver_strings()),
    "Calendar": (CalendarScheme(VersionRules(pattern=CALENDAR_PATTERN, **RULES)), calendar_strings()),
    "PEP 440": (Pep440Scheme(VersionRules(**RULES)), pep440_strings()),
}


def mixed(valid: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Valid versions, the same with a prefix or junk added, and anything at all."""
    decorated = st.tuples(st.sampled_from(["", "v", "release-", "release-v"]), valid,
                          st.sampled_from(["", "", "junk", ".", "~", " "])).map("".join)
    return st.one_of(valid, decorated, any_text())


@pytest.mark.parametrize("name", SCHEMES)
def test_total_order(name: str) -> None:
    scheme, valid = SCHEMES[name]

    @settings(max_examples=150, deadline=None)
    @given(raws=st.lists(mixed(valid), min_size=3, max_size=8), seed=st.integers(0, 2**32))
    def check(raws: list[str], seed: int) -> None:
        a, b, c = raws[:3]
        assert scheme.compare(a, a) == 0
        assert scheme.compare(a, b) == -scheme.compare(b, a)
        if scheme.compare(a, b) <= 0 and scheme.compare(b, c) <= 0:
            assert scheme.compare(a, c) <= 0
        if scheme.compare(a, b) == 0:
            assert scheme.compare(a, c) == scheme.compare(b, c)

        ordered = scheme.newest_first(raws)
        shuffled = raws[:]
        random.Random(seed).shuffle(shuffled)
        again = scheme.newest_first(shuffled)
        assert [scheme.sort_key(raw) for raw in again] == [scheme.sort_key(raw) for raw in ordered]
        assert sorted(again) == sorted(raws)
        for newer, older in pairwise(ordered):
            assert scheme.compare(newer, older) >= 0
            # no invalid string above a valid one
            assert scheme.is_valid(newer) or not scheme.is_valid(older)
        assert scheme.latest(raws) == ordered[0]
        # every answer is a plain bool / str, whatever the input
        for raw in raws:
            assert isinstance(scheme.is_prerelease(raw), bool)
            assert isinstance(scheme.display(raw), str)

    check()
