"""The ``Debian project`` backend: the upstream tarballs Debian keeps in its archive pool.

Each source package has a directory ``pool/main/<initial>/<package>/`` holding
its ``<package>_<version>.orig.tar.*`` files; ``<initial>`` is the first letter
of the package name, or its first four letters for ``lib*`` packages.  The
project name is the Debian source package name.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.regex import expand_regex, versions_from_text
from anitrack_core.errors import BackendError

REGEX_TIMEOUT = 2.0
#: like the default regex, with Debian's ``.orig`` before the archive extension
ORIG_TARBALL_REGEX = (
    r"(?i)%(name)s(?:[-_]?(?:minsrc|src|source))?[-_]([^-/_\s]+?)(?:[-_](?:minsrc|src|source|asc))?"
    r"\.(?:orig\.)?(?:tar|t[bglx]z|tbz2|zip)"
)


class DebianBackend(Backend):
    name = "Debian project"
    examples = ["http://ftp.debian.org/debian/pool/main/q/qpdf/", "http://ftp.debian.org/debian/pool/main/g/guake/"]
    #: the archive's pool of the main component (a test may point it to a fake upstream)
    pool = "http://ftp.debian.org/debian/pool/main"

    @classmethod
    def pool_url(cls, name: str) -> str:
        """``<pool>/<initial>/<name>/``; the initial of ``libfoo`` is ``libf``."""
        name = name.strip()
        if not name or "/" in name:
            raise BackendError(f"Project {name!r} was incorrectly set up: its name must be a Debian source "
                               "package name, such as qpdf")
        initial = name[:4] if name.startswith("lib") else name[:1]
        return f"{cls.pool}/{initial}/{name}/"

    def get_versions(self, project, http):
        url = self.pool_url(project.name)
        response = http.get(url, conditional=True)
        http.raise_for_rate_limit(response)
        if not response.ok:
            raise BackendError(f'{project.name}: Server responded with status "{response.status}": '
                               f'"{response.reason}" - {url}')
        return versions_from_text(response.text, expand_regex(ORIG_TARBALL_REGEX, project.name.strip()),
                                  project_name=project.name, url=url, timeout=REGEX_TIMEOUT)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(DebianBackend)
