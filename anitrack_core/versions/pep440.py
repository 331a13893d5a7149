"""The ``Python (PEP 440)`` scheme: Python's version specification, read by ``packaging``.

Users see the normalised form (``1.1RC1`` -> ``1.1rc1``, ``1.0-1`` ->
``1.0.post1``); ``.devN`` releases count as pre-releases.
"""

from __future__ import annotations

from typing import Any

from .rules import parse_pep440
from .scheme import INVALID, VALID, VersionScheme

__all__ = ["Pep440Scheme", "parse_pep440"]


class Pep440Scheme(VersionScheme):
    """PEP 440 ordering (``1.0.dev1 < 1.0a1 < 1.0rc1 < 1.0 < 1.0.post1``)."""

    name = "Python (PEP 440)"
    description = "Python's version scheme (PEP 440), shown in normalised form."

    def display(self, raw: str) -> str:
        text = self.strip_prefix(raw)
        version = parse_pep440(text)
        return text if version is None else str(version)

    def is_valid(self, raw: str) -> bool:
        return parse_pep440(self.strip_prefix(raw)) is not None

    def why_invalid(self, raw: str) -> str:
        return (
            "it does not follow PEP 440 "
            "(https://packaging.python.org/en/latest/specifications/version-specifiers/)"
        )

    def sort_key(self, raw: str) -> tuple[Any, ...]:
        text = self.strip_prefix(raw)
        version = parse_pep440(text)
        if version is None:
            return (INVALID, text)
        return (VALID, version)

    def scheme_prerelease(self, raw: str) -> bool:
        version = parse_pep440(self.strip_prefix(raw))
        return version is not None and version.is_prerelease
