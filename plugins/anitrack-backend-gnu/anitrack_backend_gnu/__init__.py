"""The ``GNU project`` backend: the release tarballs of a GNU package.

Every GNU package has a directory ``/gnu/<package>/`` on the GNU FTP site; the
backend reads it through ``ftpmirror.gnu.org``, which redirects to a nearby
mirror.  Tarball names are matched with the default regex (``<package>-<version>.tar.gz``...);
when none matches, the version sub-directories of the listing
(``href="1.2/"``) are taken instead.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.regex import expand_regex, versions_from_text
from anitrack_core.errors import BackendError

REGEX_TIMEOUT = 2.0
#: version sub-directories of the listing, when no tarball matches
DIRECTORY_REGEX = r'href="([0-9][0-9.]*)/"'


class GnuBackend(Backend):
    name = "GNU project"
    examples = ["https://ftpmirror.gnu.org/pub/gnu/gnash/"]
    #: the mirror redirector (a test may point it to a fake upstream)
    mirror = "https://ftpmirror.gnu.org"

    @classmethod
    def package_url(cls, name: str) -> str:
        name = name.strip()
        if not name or "/" in name:
            raise BackendError(f"Project {name!r} was incorrectly set up: its name must be the GNU package name "
                               "(the directory of https://ftp.gnu.org/gnu/<package>/)")
        return f"{cls.mirror}/gnu/{name}/"

    def get_versions(self, project, http):
        name = project.name.strip()
        url = self.package_url(name)
        response = http.get(url, conditional=True)
        http.raise_for_rate_limit(response)
        if not response.ok:
            raise BackendError(f'{project.name}: Server responded with status "{response.status}": '
                               f'"{response.reason}" - {url}')
        page = response.text
        try:
            return versions_from_text(page, expand_regex(None, name), project_name=project.name, url=url,
                                      timeout=REGEX_TIMEOUT)
        except BackendError:
            return versions_from_text(page, DIRECTORY_REGEX, project_name=project.name, url=url,
                                      timeout=REGEX_TIMEOUT)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GnuBackend)
