"""The ``Hackage`` backend: Haskell packages on hackage.haskell.org.

The version is found on the package page ``https://hackage.haskell.org/package/<name>``
with the default regex: the link to the source tarball of the current
release (``<name>-<version>.tar.gz``).  Each check therefore sees the newest
release only.
"""

from __future__ import annotations

from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend


class HackageBackend(RegexPageBackend):
    name = "Hackage"
    examples = ["https://hackage.haskell.org/package/Hs2lib", "https://hackage.haskell.org/package/Biobase"]
    more_info = ("Set the name to the package's name on Hackage (as in https://hackage.haskell.org/package/<name>, "
                 "letter case included); version_url is not used. Only the current release is seen at each check.")
    #: where Hackage lives (tests point it at a fake upstream)
    api_base = "https://hackage.haskell.org"
    not_found = "no such package on Hackage"

    def page_url(self, project) -> str:
        """The package's page on Hackage (version_url is ignored)."""
        return f"{self.api_base}/package/{quote(project.name.strip(), safe='')}"

    upstream_url = page_url


@hookimpl
def anitrack_register_backends(registry):
    registry.add(HackageBackend)
