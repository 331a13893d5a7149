"""The ``Packagist`` backend: PHP packages on packagist.org.

A Packagist package is named ``<vendor>/<package>``: the project's name is
the package part and its version_url holds the vendor only (``phpunit`` for
``phpunit/php-code-coverage``).  The versions are the keys of
``package.versions`` at ``https://packagist.org/packages/<vendor>/<name>.json``,
branches such as ``dev-master`` included (a version_filter can drop them).
"""

from __future__ import annotations

from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.http import FetchError
from anitrack_core.errors import BackendError


class PackagistBackend(Backend):
    name = "Packagist"
    examples = ["https://packagist.org/packages/phpunit/php-code-coverage",
                "https://packagist.org/packages/phpunit/php-timer",
                "https://packagist.org/packages/<owner or group>/<project-name>"]
    more_info = ("For the package <vendor>/<package> (as in https://packagist.org/packages/<vendor>/<package>), "
                 "set the name to <package> and version_url to <vendor>. Development branches (dev-master, "
                 "2.0.x-dev) are versions too: a version_filter such as 'dev' leaves them out.")
    #: where the API lives (tests point it at a fake upstream)
    api_base = "https://packagist.org"

    def upstream_url(self, project) -> str | None:
        """The API URL of *project*, or None when its version_url (the vendor) is empty."""
        vendor = (project.version_url or "").strip().strip("/")
        if not vendor:
            return None
        return f"{self.api_base}/packages/{quote(vendor, safe='')}/{quote(project.name.strip(), safe='')}.json"

    def get_versions(self, project, http):
        url = self.upstream_url(project)
        if url is None:
            raise BackendError(f"Project {project.name} is not correctly set up: version_url must hold the "
                               "vendor of the package (<vendor> in <vendor>/<package>)")
        data = http.get_json(url, conditional=True, detail=_api_error)
        if isinstance(data, dict) and data.get("status") == "error":
            raise BackendError(f"{data.get('message') or 'Packagist answered with an error'}: {url}")
        package = data.get("package") if isinstance(data, dict) else None
        found = package.get("versions") if isinstance(package, dict) else None
        if not isinstance(found, dict):
            raise BackendError(f"Invalid JSON returned by {url}")
        return sorted(found)


def _api_error(response) -> str:
    """The ``message`` Packagist gives with a failure (``{"status": "error", "message": ...}``), or ""."""
    try:
        data = response.json()
    except FetchError:
        return ""
    message = data.get("message") if isinstance(data, dict) else None
    return message if isinstance(message, str) else ""


@hookimpl
def anitrack_register_backends(registry):
    registry.add(PackagistBackend)
