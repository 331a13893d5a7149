"""The ``Gogs`` backend: the tags listed on the releases page of a repository on a Gogs server.

The repository is named by its web URL, ``https://<host>/<owner>/<repo>``, in
version_url or else homepage; the backend reads ``<that URL>/releases`` (the
first page) where every release or tag shows as
``<i class="tag icon"></i> <tag></a>``.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.errors import BackendError

TAG_REGEX = r'<i class="tag icon"></i> (.*)</a>'


def releases_url(project) -> str:
    """``<scheme>://<host>/<owner>/<repo>/releases`` from version_url or else homepage."""
    tokens = (project.version_url or project.homepage or "").strip().rstrip("/").split("/")
    if len(tokens) < 5 or tokens[0] not in ("http:", "https:") or tokens[1] or not all(tokens[2:5]):
        raise BackendError(f"Project {project.name} was incorrectly set up: set version_url (or homepage) to the "
                           "repository's address, https://<host>/<owner>/<repository>")
    scheme, _, host, owner, repo = tokens[:5]
    return f"{scheme}//{host}/{owner}/{repo.removesuffix('.git')}/releases"


class GogsBackend(RegexPageBackend):
    name = "Gogs"
    examples = ["https://notabug.org/libreboot/lbmk", "https://notabug.org/osboot/osbmk"]
    shared_rate_limit = False  # any Gogs server: one answering 429 must not pause the others

    def page_url(self, project):
        return releases_url(project)

    def version_regex(self, project):
        return TAG_REGEX


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GogsBackend)
