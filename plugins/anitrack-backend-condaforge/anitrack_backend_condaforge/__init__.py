"""The ``conda-forge`` backend and the ``conda-forge`` ecosystem: packages of the conda-forge channel.

Versions come from the anaconda.org API:
``https://api.anaconda.org/package/conda-forge/<name>`` answers the package
with ``versions`` (every version that has files in the channel) and
``latest_version``.  The answer also lists every file (one per build and
platform), so a package with very many builds makes a large answer; it is
read under the operator's ``max_response_bytes`` like any other.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.http import FetchError
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError

CHANNEL = "conda-forge"


def _detail(response: Any) -> str:
    """anaconda.org's own error (``{"error": ...}``); for a 404 without one, that there is no such package."""
    try:
        error = response.json().get("error")
    except (FetchError, AttributeError):
        error = None
    if isinstance(error, str) and error.strip():
        return error.strip()[:300]
    return f"no such package on {CHANNEL}" if response.status == 404 else ""


class CondaForgeBackend(Backend):
    name = "conda-forge"
    examples = ["https://anaconda.org/conda-forge/numpy", "https://anaconda.org/conda-forge/r-base"]
    more_info = ("Set the name to the package's name in the conda-forge channel (as in "
                 "https://anaconda.org/conda-forge/<name>); homepage and version_url are not used to find it.")
    #: where the API lives (tests point it at a fake upstream)
    api_base = "https://api.anaconda.org"

    def upstream_url(self, project: Any) -> str:
        """The API URL of *project* in the channel (its version_url is ignored)."""
        return f"{self.api_base}/package/{CHANNEL}/{quote((project.name or '').strip(), safe='')}"

    def get_versions(self, project: Any, http: Any) -> list[str]:
        url = self.upstream_url(project)
        data = http.get_json(url, conditional=True, detail=_detail)
        if not isinstance(data, dict):
            raise BackendError(f"{url}: unexpected answer from anaconda.org (not a JSON object)")
        versions = data.get("versions")
        if isinstance(versions, list):
            return [version for version in versions if isinstance(version, str) and version]
        latest = data.get("latest_version")
        if isinstance(latest, str) and latest:
            return [latest]
        raise BackendError(f"{url}: unexpected answer from anaconda.org (no list of versions)")


class CondaForgeEcosystem(Ecosystem):
    name = "conda-forge"
    default_backend = "conda-forge"
    aliases = ["conda"]


@hookimpl
def anitrack_register_backends(registry):
    registry.add(CondaForgeBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(CondaForgeEcosystem)
