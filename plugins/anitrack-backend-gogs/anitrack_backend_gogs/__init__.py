"""The ``Gogs`` backend: the tags listed on the releases page of a repository on a Gogs server.

The repository is named by its web URL, ``https://<host>/<owner>/<repo>``, in
version_url or else homepage; the backend reads ``<that URL>/releases`` (the
first page) where every release or tag shows as
``<i class="tag icon"></i> <tag></a>``.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.regex import versions_from_text
from anitrack_core.errors import BackendError

REGEX_TIMEOUT = 2.0
TAG_REGEX = r'<i class="tag icon"></i> (.*)</a>'


def releases_url(project) -> str:
    """``<scheme>://<host>/<owner>/<repo>/releases`` from version_url or else homepage."""
    tokens = (project.version_url or project.homepage or "").strip().rstrip("/").split("/")
    if len(tokens) < 5 or tokens[0] not in ("http:", "https:") or tokens[1] or not all(tokens[2:5]):
        raise BackendError(f"Project {project.name} was incorrectly set up: set version_url (or homepage) to the "
                           "repository's address, https://<host>/<owner>/<repository>")
    scheme, _, host, owner, repo = tokens[:5]
    return f"{scheme}//{host}/{owner}/{repo.removesuffix('.git')}/releases"


class GogsBackend(Backend):
    name = "Gogs"
    examples = ["https://notabug.org/libreboot/lbmk", "https://notabug.org/osboot/osbmk"]
    shared_rate_limit = False  # any Gogs server: one answering 429 must not pause the others

    def get_versions(self, project, http):
        url = releases_url(project)
        response = http.get(url, conditional=True)
        http.raise_for_rate_limit(response)
        if not response.ok:
            raise BackendError(f'{project.name}: Server responded with status "{response.status}": '
                               f'"{response.reason}" - {url}')
        return versions_from_text(response.text, TAG_REGEX, project_name=project.name, url=url,
                                  timeout=REGEX_TIMEOUT)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GogsBackend)
