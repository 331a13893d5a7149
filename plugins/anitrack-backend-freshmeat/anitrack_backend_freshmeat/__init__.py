"""The ``Freshmeat`` backend: the releases listed on a freshmeat.net project page.

freshmeat.net became freecode.com, which stopped being updated in 2014; the
backend is kept so that projects created long ago still check (the site
redirects ``http://freshmeat.net/projects/<name>`` to its freecode.com page).
Each release is a link ``<a href="/projects/<name>/releases/<id>">version</a>``.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.errors import BackendError

RELEASE_REGEX = r'<a href="/projects/[^/]*/releases/[0-9]*">([^<]*)</a>'


class FreshmeatBackend(RegexPageBackend):
    name = "Freshmeat"
    examples = ["http://freecode.com/projects/atmail", "http://freecode.com/projects/awstats"]
    #: the site (a test may point it to a fake upstream)
    site = "http://freshmeat.net"

    @classmethod
    def project_url(cls, name: str) -> str:
        name = name.strip()
        if not name or "/" in name:
            raise BackendError(f"Project {name!r} was incorrectly set up: its name must be the freshmeat.net "
                               "project name (the last part of http://freecode.com/projects/<name>)")
        return f"{cls.site}/projects/{name}"

    def page_url(self, project):
        return self.project_url(project.name)

    def version_regex(self, project):
        return RELEASE_REGEX


@hookimpl
def anitrack_register_backends(registry):
    registry.add(FreshmeatBackend)
