"""Version schemes and the per-project version rules.

A scheme is built once per project (``RpmScheme(VersionRules(prefix="v"))``)
and then displays, validates, orders and classifies that project's raw version
strings.  The four built-in schemes are registered by
:mod:`anitrack_core.builtin.schemes`; see ``docs/versions.md`` for users.
"""

from __future__ import annotations

from .calendar import CalendarScheme
from .pep440 import Pep440Scheme
from .rpm import RpmScheme
from .rules import (
    VersionRules,
    is_filtered_out,
    matches_pre_release_filter,
    split_filter,
    strip_prefix,
)
from .scheme import VersionScheme
from .semantic import SemanticScheme

__all__ = [
    "CalendarScheme",
    "Pep440Scheme",
    "RpmScheme",
    "SemanticScheme",
    "VersionRules",
    "VersionScheme",
    "is_filtered_out",
    "matches_pre_release_filter",
    "split_filter",
    "strip_prefix",
]
