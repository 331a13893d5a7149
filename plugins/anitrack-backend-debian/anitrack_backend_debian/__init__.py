"""The ``Debian project`` backend: the upstream tarballs Debian keeps in its archive pool.

Each source package has a directory ``pool/main/<initial>/<package>/`` holding
its ``<package>_<version>.orig.tar.*`` files; ``<initial>`` is the first letter
of the package name, or its first four letters for ``lib*`` packages.  The
project name is the Debian source package name.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.check.regex import expand_regex
from anitrack_core.errors import BackendError

#: like the default regex, with Debian's ``.orig`` before the archive extension
ORIG_TARBALL_REGEX = (
    r"(?i)%(name)s(?:[-_]?(?:minsrc|src|source))?[-_]([^-/_\s]+?)(?:[-_](?:minsrc|src|source|asc))?"
    r"\.(?:orig\.)?(?:tar|t[bglx]z|tbz2|zip)"
)


class DebianBackend(RegexPageBackend):
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

    def page_url(self, project) -> str:
        return self.pool_url(project.name)

    def version_regex(self, project) -> str:
        return expand_regex(ORIG_TARBALL_REGEX, project.name.strip())


@hookimpl
def anitrack_register_backends(registry):
    registry.add(DebianBackend)
