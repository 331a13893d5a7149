"""The ``Launchpad`` backend: the release files on a Launchpad project's download page.

``https://launchpad.net/<project>/+download`` lists the files of every
release of every series; tarball names are matched with the default regex
(``<project>-<version>.tar.gz``...).
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.regex import expand_regex, versions_from_text
from anitrack_core.errors import BackendError

REGEX_TIMEOUT = 2.0


class LaunchpadBackend(Backend):
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

    def get_versions(self, project, http):
        name = project.name.strip()
        url = self.download_url(name)
        response = http.get(url, conditional=True)
        http.raise_for_rate_limit(response)
        if not response.ok:
            raise BackendError(f'{project.name}: Server responded with status "{response.status}": '
                               f'"{response.reason}" - {url}')
        return versions_from_text(response.text, expand_regex(None, name), project_name=project.name, url=url,
                                  timeout=REGEX_TIMEOUT)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(LaunchpadBackend)
