"""The ``NuGet`` backend and the ``nuget`` ecosystem: .NET packages on nuget.org.

Versions come from the NuGet v3 "package content" resource
(``PackageBaseAddress/3.0.0``, the flat container) of nuget.org:
``https://api.nuget.org/v3-flatcontainer/<lower-case id>/index.json``,
``{"versions": [...]}``, normalized versions oldest first.  As NuGet documents
it, that list holds every version, listed or unlisted.  The resource's address
is the one nuget.org's service index (``https://api.nuget.org/v3/index.json``)
names; it is not looked up at each check.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError

#: a package id: letters, digits, ``.``, ``_`` and ``-``, at most 100 characters (NuGet's rule)
_PACKAGE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")


class NuGetBackend(Backend):
    name = "NuGet"
    examples = ["https://www.nuget.org/packages/Newtonsoft.Json", "https://www.nuget.org/packages/Serilog"]
    more_info = ("Set the name to the package id on nuget.org (as in https://www.nuget.org/packages/<id>); "
                 "homepage and version_url are not used to find it. Unlisted versions are included, as "
                 "nuget.org's version list holds them.")
    #: the flat container of nuget.org (tests point it at a fake upstream)
    api_base = "https://api.nuget.org/v3-flatcontainer"

    def upstream_url(self, project: Any) -> str:
        """The version list of *project*'s package (its version_url is ignored)."""
        package_id = (project.name or "").strip()
        if not _PACKAGE_ID.match(package_id):
            raise BackendError(f"{project.name!r} is not a NuGet package id: set the name to the id "
                               "(such as Newtonsoft.Json)")
        return f"{self.api_base}/{quote(package_id.lower(), safe='')}/index.json"

    def get_versions(self, project: Any, http: Any) -> list[str]:
        url = self.upstream_url(project)
        data = http.get_json(url, conditional=True, not_found="no such package on NuGet")
        versions = data.get("versions") if isinstance(data, dict) else None
        if not isinstance(versions, list):
            raise BackendError(f"{url}: unexpected answer from NuGet (no list of versions)")
        return [version for version in versions if isinstance(version, str) and version]


class NuGetEcosystem(Ecosystem):
    name = "nuget"
    default_backend = "NuGet"


@hookimpl
def anitrack_register_backends(registry):
    registry.add(NuGetBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(NuGetEcosystem)
