"""The ``Homebrew`` backend and the ``homebrew`` ecosystem: formulae of homebrew/core.

The version comes from Homebrew's formulae JSON API:
``https://formulae.brew.sh/api/formula/<name>.json`` answers the formula with
``versions: {"stable": "<version>", "head": ..., "bottle": ...}``.  Only the
current stable version is published, so a project's versions accumulate
check after check; Homebrew's own ``revision`` (a rebuild of the same
version) is not a version.
"""

from __future__ import annotations

import re
from typing import Any

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError

#: a formula name of homebrew/core: letters, digits, ``@ . _ + -`` (``python@3.12``, ``gtk+3``)
_FORMULA = re.compile(r"^[A-Za-z0-9@._+-]+$")


class HomebrewBackend(Backend):
    name = "Homebrew"
    examples = ["https://formulae.brew.sh/formula/wget", "https://formulae.brew.sh/formula/python@3.12"]
    more_info = ("Set the name to the formula's name in homebrew/core (as in https://formulae.brew.sh/formula/"
                 "<name>); homepage and version_url are not used to find it. Homebrew publishes the current "
                 "stable version only, so versions accumulate from check to check.")
    #: where the API lives (tests point it at a fake upstream)
    api_base = "https://formulae.brew.sh"

    def upstream_url(self, project: Any) -> str:
        """The formula's JSON (its version_url is ignored)."""
        formula = (project.name or "").strip()
        if not _FORMULA.match(formula) or formula in (".", ".."):
            raise BackendError(f"{project.name!r} is not a formula of homebrew/core: set the name to the formula's "
                               "name (such as wget); formulae of other taps are not supported")
        return f"{self.api_base}/api/formula/{formula}.json"

    def get_versions(self, project: Any, http: Any) -> list[str]:
        url = self.upstream_url(project)
        data = http.get_json(url, conditional=True, not_found="no such formula in Homebrew")
        versions = data.get("versions") if isinstance(data, dict) else None
        if not isinstance(versions, dict):
            raise BackendError(f"{url}: unexpected answer from Homebrew (no versions)")
        stable = versions.get("stable")
        return [stable] if isinstance(stable, str) and stable else []


class HomebrewEcosystem(Ecosystem):
    name = "homebrew"
    default_backend = "Homebrew"
    aliases = ["brew"]


@hookimpl
def anitrack_register_backends(registry):
    registry.add(HomebrewBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(HomebrewEcosystem)
