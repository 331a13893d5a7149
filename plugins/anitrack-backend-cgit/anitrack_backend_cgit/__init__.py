"""The ``Cgit`` backend: the snapshot tarballs listed on the tags page of a cgit web front-end.

cgit (https://git.zx2c4.com/cgit/) serves ``<repository>/refs/tags``, a table
with one row per tag and, when snapshots are enabled, links to archives such
as ``foo-1.2.tar.xz``.  The version is the archive name without the
repository name and the archive extension.
"""

from __future__ import annotations

import regex

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.regex import versions_from_text
from anitrack_core.errors import BackendError

REGEX_TIMEOUT = 2.0
#: a snapshot link; the project name (any letter case) before the version is optional
SNAPSHOT_REGEX = r"<a href='.*'>(?:(?i:%(name)s)-)?(.*)\.(?:tar|tar\.[bglx]z|tbz2|zip)</a>"


def tags_url(project) -> str:
    """``<version_url or homepage>/refs/tags``."""
    base = (project.version_url or project.homepage or "").strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise BackendError(f"Project {project.name} was incorrectly set up: set version_url (or homepage) to the "
                           "cgit page of the repository, such as https://git.zx2c4.com/cgit/")
    return base + "/refs/tags"


class CgitBackend(Backend):
    name = "Cgit"
    examples = [
        "https://git.savannah.gnu.org/cgit/gnuzilla.git",
        "https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git/",
    ]
    shared_rate_limit = False  # any cgit server: one answering 429 must not pause the others

    def get_versions(self, project, http):
        url = tags_url(project)
        response = http.get(url, conditional=True)
        http.raise_for_rate_limit(response)
        if not response.ok:
            raise BackendError(f'{project.name}: Server responded with status "{response.status}": '
                               f'"{response.reason}" - {url}')
        pattern = SNAPSHOT_REGEX.replace("%(name)s", regex.escape(project.name))
        return versions_from_text(response.text, pattern, project_name=project.name, url=url,
                                  timeout=REGEX_TIMEOUT)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(CgitBackend)
