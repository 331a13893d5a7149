"""The ``Cgit`` backend: the snapshot tarballs listed on the tags page of a cgit web front-end.

cgit (https://git.zx2c4.com/cgit/) serves ``<repository>/refs/tags``, a table
with one row per tag and, when snapshots are enabled, links to archives such
as ``foo-1.2.tar.xz``.  The version is the archive name without the
repository name and the archive extension.
"""

from __future__ import annotations

import regex

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.errors import BackendError

#: a snapshot link; the project name (any letter case) before the version is optional
SNAPSHOT_REGEX = r"<a href='.*'>(?:(?i:%(name)s)-)?(.*)\.(?:tar|tar\.[bglx]z|tbz2|zip)</a>"


def tags_url(project) -> str:
    """``<version_url or homepage>/refs/tags``."""
    base = (project.version_url or project.homepage or "").strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise BackendError(f"Project {project.name} was incorrectly set up: set version_url (or homepage) to the "
                           "cgit page of the repository, such as https://git.zx2c4.com/cgit/")
    return base + "/refs/tags"


class CgitBackend(RegexPageBackend):
    name = "Cgit"
    examples = [
        "https://git.savannah.gnu.org/cgit/gnuzilla.git",
        "https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git/",
    ]
    shared_rate_limit = False  # any cgit server: one answering 429 must not pause the others

    def page_url(self, project):
        return tags_url(project)

    def version_regex(self, project):
        return SNAPSHOT_REGEX.replace("%(name)s", regex.escape(project.name))


@hookimpl
def anitrack_register_backends(registry):
    registry.add(CgitBackend)
