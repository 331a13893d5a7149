"""Project regular expressions that cannot hang a worker.

A project's regex is user input run over an upstream page, which is also
outside our control: a pattern such as ``(a+)+$`` over a long run of ``a``
backtracks for longer than the universe lasts.  Python's own :mod:`re` cannot
be interrupted, so patterns run on the `regex <https://pypi.org/project/regex/>`_
engine (in its ``re``-compatible mode), which takes a ``timeout`` and releases
the GIL while it matches.

Patterns are also limited to :data:`MAX_PATTERN_LENGTH` characters, because
the timeout does not cover everything: the first search with a pattern that
holds a long literal builds a search table, in time that grows with the cube
of the literal's length and without looking at the clock (measured with
regex 2026.11: a 4096-character literal took 30 s under ``timeout=1``; 1024
characters take about 0.25 s, once per compiled pattern).
"""

from __future__ import annotations

from typing import Any

import regex as _regex

from ..errors import AnitrackError, BackendError

#: Anitya's global default regex (its ``DEFAULT_REGEX`` setting).  ``%(name)s``
#: stands for the project name; the first group is the version.
DEFAULT_REGEX = (
    r"(?i)%(name)s(?:[-_]?(?:minsrc|src|source))?[-_]([^-/_\s]+?(?:[-_](?:rc|devel|dev|alpha|beta)\d+)?)"
    r"(?:[-_](?:minsrc|src|source|asc|release))?\.(?:tar|t[bglx]z|tbz2|zip)"
)
#: what a project's regex field may say to ask for :data:`DEFAULT_REGEX`
DEFAULT_ALIAS = "DEFAULT"
NAME_PLACEHOLDER = "%(name)s"
MAX_PATTERN_LENGTH = 1024

Pattern = Any  # a compiled pattern of the regex package


class InvalidRegexError(AnitrackError):
    """A regular expression does not compile, or is too long."""


def compile_user_regex(pattern: str) -> Pattern:
    """Compile a user's regular expression (Python ``re`` syntax).

    :raises InvalidRegexError: with a message saying what is wrong.
    """
    if not isinstance(pattern, str):
        raise InvalidRegexError(f"the regular expression must be a string, not {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise InvalidRegexError(
            f"the regular expression is {len(pattern)} characters long; at most {MAX_PATTERN_LENGTH} are allowed"
        )
    try:
        return _regex.compile(pattern, _regex.VERSION0)
    except (_regex.error, ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise InvalidRegexError(f"invalid regular expression: {exc}") from None


def expand_regex(pattern: str | None, project_name: str) -> str:
    """The regex to run for a project: *pattern* (None or ``DEFAULT`` mean
    :data:`DEFAULT_REGEX`) with ``%(name)s`` replaced by the project name.

    The name is fully escaped, so every character matches itself (``foo.bar``
    does not match ``fooXbar``).  Anitya escaped only ``+``; names with other
    special characters (``.``, ``(``...) matched more, or failed, there.
    """
    if pattern is None or pattern.strip() == DEFAULT_ALIAS or not pattern.strip():
        pattern = DEFAULT_REGEX
    return pattern.replace(NAME_PLACEHOLDER, _regex.escape(project_name))


def versions_from_text(
    text: str, pattern: str | Pattern, *, project_name: str, url: str, timeout: float
) -> list[str]:
    """The versions *pattern* finds in *text* (a page fetched from *url*).

    Every match is a version; a match of several groups is its non-empty
    groups joined with ``.`` (``(\\d)_(\\d)`` on ``1_2`` gives ``1.2``).  Empty
    matches are dropped and duplicates removed, keeping the order of the page.

    :param timeout: seconds the search may run.
    :raises BackendError: invalid regex, a version containing whitespace, no
        version at all, or a search that took longer than *timeout*.
    """
    source = pattern if isinstance(pattern, str) else pattern.pattern
    try:
        compiled = compile_user_regex(pattern) if isinstance(pattern, str) else pattern
    except InvalidRegexError as exc:
        raise BackendError(f"{project_name}: {exc} - {url} - {source}") from None
    try:
        matches = compiled.findall(text, timeout=timeout, concurrent=True)
    except TimeoutError:
        raise BackendError(
            f"{project_name}: the regular expression took longer than {timeout:g} s on the page at {url} "
            f"and should be simplified - {source}"
        ) from None
    versions: dict[str, None] = {}
    for match in matches:
        version = ".".join(group for group in match if group) if isinstance(match, tuple) else match
        if not version:
            continue
        if any(char.isspace() for char in version):
            raise BackendError(f"{project_name}: invalid upstream version: >{version}< - {url} - {source}")
        versions.setdefault(version, None)
    if not versions:
        raise BackendError(f"{project_name}: no upstream version found. - {url} - {source}")
    return list(versions)
