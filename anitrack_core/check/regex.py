"""Project regular expressions that cannot hang a worker.

A project's regex is user input run over an upstream page, which is also
outside our control: a pattern such as ``(a+)+$`` over a long run of ``a``
backtracks for longer than the universe lasts.  Python's own :mod:`re` cannot
be interrupted, so patterns run on the `regex <https://pypi.org/project/regex/>`_
engine (in its ``re``-compatible mode), which takes a ``timeout`` and releases
the GIL while it matches.

Compiling a pattern costs far more than running it over a page (about
0.5 ms against 15 µs), and the default pattern differs for every project (it
holds the name), so nothing could be reused.  :func:`versions_from_text`
therefore runs :data:`DEFAULT_REGEX` for an ASCII name without compiling it:
it finds the name case-insensitively and matches the name-free rest of the
pattern, compiled once, after each occurrence, which finds exactly what
``findall`` of the whole pattern finds.

Patterns are also limited to :data:`MAX_PATTERN_LENGTH` characters, because
the timeout does not cover everything: the first search with a pattern that
holds a long literal builds a search table, in time that grows with the cube
of the literal's length and without looking at the clock (measured with
regex 2026.11: a 4096-character literal took 30 s under ``timeout=1``; 1024
characters take about 0.25 s, once per compiled pattern).
"""

from __future__ import annotations

import time
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
_DEFAULT_HEAD, _DEFAULT_TAIL = DEFAULT_REGEX.split(NAME_PLACEHOLDER)
#: :data:`DEFAULT_REGEX` after the name (its flags kept), compiled once
_DEFAULT_AFTER_NAME = _regex.compile(_DEFAULT_HEAD + _DEFAULT_TAIL, _regex.VERSION0)
#: length-preserving: every character that case-insensitive matching takes for an ASCII letter, as that
#: letter in lower case: ASCII capitals, KELVIN SIGN, LONG S, and both Turkish i (see :data:`_TURKISH_I`)
_FOLD_TO_ASCII = str.maketrans({**{chr(code): chr(code + 32) for code in range(ord("A"), ord("Z") + 1)},
                                "\u212a": "k", "\u017f": "s", "\u0131": "i", "\u0130": "i"})
#: the regex engine matches dotless ı only with I, and dotted İ only with i
_TURKISH_I = {"\u0131": "I", "\u0130": "i"}
_ESCAPED_CHAR = _regex.compile(r"\\(.)", _regex.DOTALL)

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
    name = _default_pattern_name(pattern) if isinstance(pattern, str) else None
    if name is not None:
        try:
            matches = _find_after_name(text, name, timeout)
        except TimeoutError:
            raise _too_slow(project_name, timeout, url, source) from None
        return _versions(matches, project_name, url, source)
    try:
        compiled = compile_user_regex(pattern) if isinstance(pattern, str) else pattern
    except InvalidRegexError as exc:
        raise BackendError(f"{project_name}: {exc} - {url} - {source}") from None
    try:
        matches = compiled.findall(text, timeout=timeout, concurrent=True)
    except TimeoutError:
        raise _too_slow(project_name, timeout, url, source) from None
    return _versions(matches, project_name, url, source)


def _too_slow(project_name: str, timeout: float, url: str, source: str) -> BackendError:
    return BackendError(f"{project_name}: the regular expression took longer than {timeout:g} s on the page at "
                        f"{url} and should be simplified - {source}")


def _versions(matches: list[Any], project_name: str, url: str, source: str) -> list[str]:
    """The versions of *matches* (what ``findall`` returns), as :func:`versions_from_text` describes."""
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


def _default_pattern_name(pattern: str) -> str | None:
    """The name *pattern* is :data:`DEFAULT_REGEX` expanded for (:func:`expand_regex`), when it is one
    and the name is ASCII; else None."""
    if not (pattern.startswith(_DEFAULT_HEAD) and pattern.endswith(_DEFAULT_TAIL)):
        return None
    escaped = pattern[len(_DEFAULT_HEAD):len(pattern) - len(_DEFAULT_TAIL)]
    name = _ESCAPED_CHAR.sub(r"\1", escaped)
    if not name or not name.isascii() or _regex.escape(name) != escaped:
        return None
    return name


def _find_after_name(text: str, name: str, timeout: float) -> list[str]:
    """What ``findall`` of :data:`DEFAULT_REGEX` for the ASCII *name* finds in *text*, without compiling it:
    leftmost matches, each search going on after the previous match.

    :raises TimeoutError: the matching took longer than *timeout* seconds in all.
    """
    folded, needle = text.translate(_FOLD_TO_ASCII), name.lower()
    deadline = time.monotonic() + timeout
    found: list[str] = []
    start = folded.find(needle)
    while start >= 0:
        if not all(_TURKISH_I.get(char, wanted) == wanted for char, wanted in zip(text[start:], name)):
            start = folded.find(needle, start + 1)
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("regex timed out")
        match = _DEFAULT_AFTER_NAME.match(text, start + len(needle), timeout=left)
        if match is not None:
            found.append(match.group(1))
            start = folded.find(needle, match.end())
        else:
            start = folded.find(needle, start + 1)
    return found
