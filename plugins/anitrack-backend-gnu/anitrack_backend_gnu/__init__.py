"""The ``GNU project`` backend: the release tarballs of a GNU package.

Every GNU package has a directory ``/gnu/<package>/`` on the GNU FTP site; the
backend reads it through ``ftpmirror.gnu.org``, which redirects to a nearby
mirror.  Tarball names are matched with the default regex (``<package>-<version>.tar.gz``...);
when none matches, the version sub-directories of the listing
(``href="1.2/"``) are taken instead.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.errors import BackendError

#: version sub-directories of the listing, when no tarball matches
DIRECTORY_REGEX = r'href="([0-9][0-9.]*)/"'


class GnuBackend(RegexPageBackend):
    name = "GNU project"
    examples = ["https://ftpmirror.gnu.org/pub/gnu/gnash/"]
    #: the mirror redirector (a test may point it to a fake upstream)
    mirror = "https://ftpmirror.gnu.org"
    fallback_regex = DIRECTORY_REGEX  # the version sub-directories, when no tarball matches

    @classmethod
    def package_url(cls, name: str) -> str:
        name = name.strip()
        if not name or "/" in name:
            raise BackendError(f"Project {name!r} was incorrectly set up: its name must be the GNU package name "
                               "(the directory of https://ftp.gnu.org/gnu/<package>/)")
        return f"{cls.mirror}/gnu/{name}/"

    def page_url(self, project) -> str:
        return self.package_url(project.name)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GnuBackend)
