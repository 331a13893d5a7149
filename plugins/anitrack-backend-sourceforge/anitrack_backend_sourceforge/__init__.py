"""The ``Sourceforge`` backend: the released files of a SourceForge project.

It reads the RSS feed of a project's files,
``https://sourceforge.net/projects/<project>/rss?limit=200`` (the 200 newest
files), and matches the file names with the default regex.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.errors import BackendError

SITE = "https://sourceforge.net"


class SourceforgeBackend(RegexPageBackend):
    name = "Sourceforge"
    examples = ["https://sourceforge.net/projects/filezilla/", "https://sourceforge.net/projects/file-folder-ren/"]
    #: the site (a test may point it to a fake upstream)
    site = SITE

    @classmethod
    def feed_url(cls, project) -> str:
        """The files feed of the SourceForge project named by version_url, or else by the project name."""
        unix_name = (project.version_url or project.name or "").strip().rstrip("/")
        for prefix in (f"{cls.site}/projects/", f"{cls.site}/p/"):
            if unix_name.startswith(prefix):
                unix_name = unix_name[len(prefix):].split("/", 1)[0]
        if not unix_name or "/" in unix_name:
            raise BackendError(f"Project {project.name} was incorrectly set up: set version_url to the SourceForge "
                               "project name (the part after https://sourceforge.net/projects/)")
        return f"{cls.site}/projects/{unix_name}/rss?limit=200"

    def page_url(self, project):
        return self.feed_url(project)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(SourceforgeBackend)
