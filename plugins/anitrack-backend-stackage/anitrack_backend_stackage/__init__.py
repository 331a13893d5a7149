"""The ``Stackage`` backend: Haskell packages as the Stackage snapshots carry them.

The version is read from the package page ``https://www.stackage.org/package/<name>``:
the version linked to the package's Hackage page, that is the one of the
latest long-term-support snapshot.  Each check sees that single version.
"""

from __future__ import annotations

from urllib.parse import quote

import regex

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.regex import versions_from_text
from anitrack_core.errors import BackendError

REGEX_TIMEOUT = 2.0
#: the version shown next to the link to the package on Hackage; {name} is the escaped name
VERSION_REGEX = r'<a href="https://hackage\.haskell\.org/package/{name}"><span class="version">([\d.]+)'


class StackageBackend(Backend):
    name = "Stackage"
    examples = ["https://www.stackage.org/package/conduit", "https://www.stackage.org/package/cabal-install"]
    more_info = ("Set the name to the package's name (as in https://www.stackage.org/package/<name>); "
                 "version_url is not used. The version is the one of the latest Stackage LTS snapshot.")
    #: where Stackage lives (tests point it at a fake upstream)
    api_base = "https://www.stackage.org"

    def upstream_url(self, project) -> str:
        """The package's page on Stackage (version_url is ignored)."""
        return f"{self.api_base}/package/{quote(project.name.strip(), safe='')}"

    def get_versions(self, project, http):
        url = self.upstream_url(project)
        response = http.get(url, conditional=True)
        http.raise_for_rate_limit(response)
        if response.status == 404:
            raise BackendError(f"{project.name}: no such package on Stackage: {url} (HTTP 404)")
        if not response.ok:
            raise BackendError(f'{url}: server responded with status {response.status} "{response.reason}"')
        pattern = VERSION_REGEX.replace("{name}", regex.escape(project.name.strip()))
        return versions_from_text(response.text, pattern, project_name=project.name, url=url,
                                  timeout=REGEX_TIMEOUT)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(StackageBackend)
