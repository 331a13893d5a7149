"""The ``Stackage`` backend: Haskell packages as the Stackage snapshots carry them.

The version is read from the package page ``https://www.stackage.org/package/<name>``:
the version linked to the package's Hackage page, that is the one of the
latest long-term-support snapshot.  Each check sees that single version.
"""

from __future__ import annotations

from urllib.parse import quote

import regex

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend

#: the version shown next to the link to the package on Hackage; {name} is the escaped name
VERSION_REGEX = r'<a href="https://hackage\.haskell\.org/package/{name}"><span class="version">([\d.]+)'


class StackageBackend(RegexPageBackend):
    name = "Stackage"
    examples = ["https://www.stackage.org/package/conduit", "https://www.stackage.org/package/cabal-install"]
    more_info = ("Set the name to the package's name (as in https://www.stackage.org/package/<name>); "
                 "version_url is not used. The version is the one of the latest Stackage LTS snapshot.")
    #: where Stackage lives (tests point it at a fake upstream)
    api_base = "https://www.stackage.org"
    not_found = "no such package on Stackage"

    def page_url(self, project) -> str:
        """The package's page on Stackage (version_url is ignored)."""
        return f"{self.api_base}/package/{quote(project.name.strip(), safe='')}"

    upstream_url = page_url

    def version_regex(self, project) -> str:
        return VERSION_REGEX.replace("{name}", regex.escape(project.name.strip()))


@hookimpl
def anitrack_register_backends(registry):
    registry.add(StackageBackend)
