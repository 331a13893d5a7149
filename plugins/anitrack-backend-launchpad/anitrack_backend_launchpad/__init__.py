"""The ``Launchpad`` backend: the release files on a Launchpad project's download page.

``https://launchpad.net/<project>/+download`` lists the files of every
release of every series; tarball names are matched with the default regex
(``<project>-<version>.tar.gz``...).
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.errors import BackendError


class LaunchpadBackend(RegexPageBackend):
    name = "Launchpad"
    examples = ["https://launchpad.net/terminator/", "https://launchpad.net/exaile"]
    #: the site (a test may point it to a fake upstream)
    site = "https://launchpad.net"

    @classmethod
    def download_url(cls, name: str) -> str:
        name = name.strip()
        if not name or "/" in name:
            raise BackendError(f"Project {name!r} was incorrectly set up: its name must be the Launchpad project "
                               "name (the last part of https://launchpad.net/<name>)")
        return f"{cls.site}/{name}/+download"

    def page_url(self, project) -> str:
        return self.download_url(project.name)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(LaunchpadBackend)
