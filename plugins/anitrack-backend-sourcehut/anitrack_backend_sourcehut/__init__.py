"""The ``SourceHut`` backend: the git tags of a repository on git.sr.ht.

The repository is ``~<owner>/<repo>``, taken from version_url (``owner/repo``)
or else from a homepage ``https://git.sr.ht/~<owner>/<repo>``; the backend
reads its refs feed, ``https://git.sr.ht/~<owner>/<repo>/refs/rss.xml``, whose
item titles are the tag names.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.feeds import parse_xml
from anitrack_core.errors import BackendError


class SourceHutBackend(Backend):
    name = "SourceHut"
    examples = ["https://git.sr.ht/~sircmpwn/scdoc", "https://git.sr.ht/~sircmpwn/hare"]
    #: the git service (a test may point it to a fake upstream)
    site = "https://git.sr.ht"

    @classmethod
    def feed_url(cls, project) -> str:
        """``<site>/~<owner>/<repo>/refs/rss.xml``."""
        homepage_prefix = f"{cls.site}/~"
        source = (project.version_url or "").strip()
        if source:
            source = source.removeprefix(homepage_prefix).removeprefix("~")
        elif (project.homepage or "").strip().startswith(homepage_prefix):
            source = project.homepage.strip()[len(homepage_prefix):]
        source = source.removesuffix("/")
        owner, _, repo = source.partition("/")
        if not owner or not repo or "/" in repo or ":" in owner:
            raise BackendError(f"Project {project.name} was incorrectly set up: set version_url to <owner>/<repository>"
                               " or homepage to https://git.sr.ht/~<owner>/<repository>")
        return f"{cls.site}/~{owner}/{repo}/refs/rss.xml"

    def get_versions(self, project, http):
        url = self.feed_url(project)
        response = http.fetch(url, conditional=True)
        feed = parse_xml(response.content, url)
        titles = [(item.findtext("title") or "").strip() for item in feed.iterfind("channel/item")]
        found = [title for title in titles if title]
        if not found:
            raise BackendError(f"{project.name}: no upstream version found. '{url}'")
        return found


@hookimpl
def anitrack_register_backends(registry):
    registry.add(SourceHutBackend)
