"""Hypothesis strategies for version strings, valid and not."""

from __future__ import annotations

import string

from hypothesis import strategies as st

#: the characters rpm version strings are drawn from
RPM_ALPHABET = string.digits + string.ascii_letters + ".-_~^+"


def rpm_strings(max_size: int = 12) -> st.SearchStrategy[str]:
    return st.text(alphabet=RPM_ALPHABET, min_size=1, max_size=max_size)


def _pairs_sharing_a_start(strings: st.SearchStrategy[str]) -> st.SearchStrategy[tuple[str, str]]:
    """Pairs that often differ only near the end, where orderings are subtle."""
    shared = st.tuples(strings, strings, strings).map(lambda t: (t[0] + t[1], t[0] + t[2]))
    return st.one_of(st.tuples(strings, strings), shared)


def rpm_pairs() -> st.SearchStrategy[tuple[str, str]]:
    return _pairs_sharing_a_start(st.text(alphabet=RPM_ALPHABET, min_size=1, max_size=6))


# ---- Semantic versioning ----

_small_numbers = st.one_of(st.integers(0, 3), st.integers(0, 10**9)).map(str)
_alnum_identifier = st.text(
    alphabet=string.ascii_letters + string.digits + "-", min_size=1, max_size=6
).filter(lambda s: not s.isdigit())
_pre_identifier = st.one_of(
    _small_numbers, st.sampled_from(["alpha", "beta", "rc", "a", "B", "-", "0a", "x-1"]),
    _alnum_identifier,
)
_build_identifier = st.text(alphabet=string.ascii_letters + string.digits + "-", min_size=1, max_size=5)


@st.composite
def semver_strings(draw: st.DrawFn) -> str:
    """Valid semantic versions, drawn so that many share their leading parts."""
    core = ".".join(draw(_small_numbers) for _ in range(3))
    pre = draw(st.lists(_pre_identifier, max_size=3))
    build = draw(st.lists(_build_identifier, max_size=2))
    return core + ("-" + ".".join(pre) if pre else "") + ("+" + ".".join(build) if build else "")


def semver_like_strings() -> st.SearchStrategy[str]:
    """Strings near semantic versions: most are invalid in some small way."""
    alphabet = string.digits + "..--+aAz \n\u0661"
    mutated = st.tuples(semver_strings(), st.text(alphabet=alphabet, max_size=2), st.integers(0, 20)).map(
        lambda t: t[0][: t[2]] + t[1] + t[0][t[2]:]
    )
    return st.one_of(semver_strings(), mutated, st.text(alphabet=alphabet, max_size=14))


# ---- PEP 440 ----

_pre_spelling = st.sampled_from(["a", "b", "rc", "c", "alpha", "beta", "pre", "preview", "A", "RC"])
_separator = st.sampled_from(["", ".", "-", "_"])
_optional_number = st.one_of(st.just(""), st.integers(0, 12).map(str))


@st.composite
def pep440_strings(draw: st.DrawFn) -> str:
    """Valid PEP 440 versions in varied (not always normalised) spellings."""
    text = draw(st.sampled_from(["", "", "", "1!", "2!"]))
    text += ".".join(str(draw(st.integers(0, 12))) for _ in range(draw(st.integers(1, 4))))
    if draw(st.booleans()):
        number = draw(_optional_number)
        text += draw(_separator) + draw(_pre_spelling) + (draw(_separator) + number if number else "")
    if draw(st.booleans()):
        text += draw(st.sampled_from([".post", "-post", "post", ".rev", "r"])) + draw(_optional_number)
    if draw(st.booleans()):
        text += draw(st.sampled_from([".dev", "dev", "-dev"])) + draw(_optional_number)
    if draw(st.integers(0, 4)) == 0:
        text += "+" + draw(st.sampled_from(["local", "ubuntu.1", "7", "abc.2"]))
    return text


# ---- Calendar, for the pattern YYYY.0M.0D-MODIFIER ----

CALENDAR_PATTERN = "YYYY.0M.0D-MODIFIER"


@st.composite
def calendar_strings(draw: st.DrawFn) -> str:
    """Valid versions of :data:`CALENDAR_PATTERN`, some stopping early."""
    text = str(draw(st.integers(2018, 2021)))
    if draw(st.integers(0, 5)):
        text += f".{draw(st.integers(1, 12)):02d}"
        if draw(st.integers(0, 5)):
            text += f".{draw(st.integers(1, 31)):02d}"
            if draw(st.booleans()):
                text += "-" + draw(st.sampled_from(["rc", "RC", "alpha", "beta1", "rc12", "rc3", "x"]))
    return text


def any_text() -> st.SearchStrategy[str]:
    """Anything, including the empty string and non-ASCII characters."""
    return st.one_of(st.text(max_size=10), st.text(alphabet=RPM_ALPHABET + " v", max_size=10))
