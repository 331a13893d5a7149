"""The ``Sourceforge (git)`` backend: the tags of a git repository hosted on SourceForge.

It reads the tag list of a git repository of a project,
``https://sourceforge.net/p/<project>/<repository>/ref/master/tags/``: every
tag is a link to ``/p/<project>/<repository>/ci/<tag>/tree/``.
"""

from __future__ import annotations

from html.parser import HTMLParser

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.errors import BackendError

SITE = "https://sourceforge.net"


class _TagLinks(HTMLParser):
    """The text of every ``<a href="<prefix>...">`` that has exactly one child node.

    A tag link holds its name alone (``<a href="/p/x/y/ci/1.0/tree/">1.0</a>``);
    the branch links of the side bar hold whitespace around a ``<span>``, three
    children, and are left out.
    """

    _VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                       "track", "wbr"})

    def __init__(self, prefix: str) -> None:
        super().__init__(convert_charrefs=True)
        self.prefix = prefix
        self.found: list[str] = []
        self._open = False  # inside a tag link
        self._children = 0
        self._depth = 0  # elements open inside the link
        self._in_text = False  # the last child node is text (adjacent data is one node)
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if not self._open:
            if tag == "a" and (dict(attrs).get("href") or "").startswith(self.prefix):
                self._open, self._children, self._depth, self._in_text, self._text = True, 0, 0, False, []
            return
        if self._depth == 0:
            self._children += 1
            self._in_text = False
        if tag not in self._VOID:
            self._depth += 1

    def handle_endtag(self, tag):
        if not self._open or tag in self._VOID:
            return
        if self._depth:
            self._depth -= 1
        elif tag == "a":
            self._open = False
            text = "".join(self._text).strip()
            if self._children == 1 and text:
                self.found.append(text)

    def handle_data(self, data):
        if not self._open:
            return
        if self._depth == 0 and not self._in_text:
            self._children += 1
            self._in_text = True
        self._text.append(data)


class SourceforgeGitBackend(Backend):
    name = "Sourceforge (git)"
    examples = [
        "https://sourceforge.net/p/ubuntuzilla/ubuntuzilla/ref/master/tags/",
        "https://sourceforge.net/p/flightgear/flightgear/ref/master/tags/",
        "https://sourceforge.net/p/eclipse-cs/git/ref/master/tags/",
    ]
    #: the site (a test may point it to a fake upstream)
    site = SITE

    @classmethod
    def tags_url(cls, project) -> str:
        """The tags page, from version_url (a tags page, or ``<project>[/<repository>]``) or homepage."""
        repos = f"{cls.site}/p/"
        vu = (project.version_url or "").strip()
        if vu.startswith(repos):
            return vu
        if vu:
            namespace, _, repo = vu.strip("/").partition("/")
        elif project.homepage and project.homepage.strip().startswith(repos):
            namespace, _, rest = project.homepage.strip()[len(repos):].partition("/")
            repo = rest.split("/", 1)[0]
        else:
            namespace, repo = project.name.strip(), ""
        if repo in ("", "ci"):
            repo = "git"
        if not namespace or "/" in repo:
            raise BackendError(f"Project {project.name} was incorrectly set up: set version_url to the tags page of "
                               "the repository, https://sourceforge.net/p/<project>/<repository>/ref/master/tags/")
        return f"{repos}{namespace}/{repo}/ref/master/tags/"

    def get_versions(self, project, http):
        url = self.tags_url(project)
        path = url[len(self.site):] if url.startswith(self.site) else url
        namespace, repo = (path.split("/") + ["", "", "", ""])[2:4]
        response = http.fetch(url, conditional=True)
        links = _TagLinks(f"/p/{namespace}/{repo}/ci/")
        links.feed(response.text)
        links.close()
        if not links.found:
            raise BackendError(f"{project.name}: no tag found on {url}")
        return links.found


@hookimpl
def anitrack_register_backends(registry):
    registry.add(SourceforgeGitBackend)
