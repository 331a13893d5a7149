"""Our rpmvercmp against the real rpm (``rpm.labelCompare`` of the system python)."""

from __future__ import annotations

from hypothesis import given, settings

from anitrack_core.versions.rpm import rpmvercmp

from .oracles import RpmOracle
from .strategies import rpm_pairs
from .test_rpm import EQUAL, OLDER_NEWER


def test_hand_picked_bases_agree_with_rpm(rpm_oracle: RpmOracle) -> None:
    """The §7.3 vectors without a keyword layer, checked in one round trip."""
    pairs = [(a, b) for a, b in OLDER_NEWER + EQUAL if a and b]
    pairs += [("1.0~a", "1.0"), ("1.0^1", "1.0.1"), ("1.0^", "1.0a"), ("1.0~", "1.0~~"), ("01", "1"),
              ("1.0a", "1.0.0"), ("a", "B"), ("1..0", "1.0"), ("1.0+", "1.0"), ("^", "~")]
    answers = rpm_oracle.label_compare(pairs)
    ours = [rpmvercmp(a, b) for a, b in pairs]
    assert list(zip(pairs, ours, strict=True)) == list(zip(pairs, answers, strict=True))


@settings(max_examples=500, deadline=None)
@given(pair=rpm_pairs())
def test_rpmvercmp_agrees_with_rpm(rpm_oracle: RpmOracle, pair: tuple[str, str]) -> None:
    a, b = pair
    (answer,) = rpm_oracle.label_compare([(a, b)])
    assert rpmvercmp(a, b) == answer, f"rpm says {a!r} vs {b!r} is {answer}"
