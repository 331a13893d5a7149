"""The built-in version schemes: RPM, Semantic, Calendar and Python (PEP 440)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anitrack_core import hookimpl
from anitrack_core.versions import CalendarScheme, Pep440Scheme, RpmScheme, SemanticScheme

if TYPE_CHECKING:
    from anitrack_core.registry import SchemeRegistry


@hookimpl
def anitrack_register_version_schemes(registry: SchemeRegistry) -> None:
    for scheme in (RpmScheme, SemanticScheme, CalendarScheme, Pep440Scheme):
        registry.add(scheme)
