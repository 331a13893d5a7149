"""The ``Gitea`` backend: the tags (or releases) of a repository on a Gitea or Forgejo server.

The repository is named by its web URL, ``https://<host>/<owner>/<repo>``, in
version_url or else homepage; the backend asks that host's API,
``/api/v1/repos/<owner>/<repo>/tags`` (``/releases`` when the project is
releases-only), and reads the ``name`` of every entry of its first page.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.errors import BackendError


def api_url(project) -> str:
    """The API URL of the tags (or releases) of the project's repository."""
    source = (project.version_url or project.homepage or "").strip().rstrip("/").removesuffix(".git")
    tokens = source.split("/")
    if len(tokens) != 5 or tokens[0] not in ("http:", "https:") or tokens[1] or not all(tokens[2:]):
        raise BackendError(f"Project {project.name} was incorrectly set up: set version_url (or homepage) to the "
                           "repository's address, https://<host>/<owner>/<repository>")
    scheme, _, host, owner, repo = tokens
    return f"{scheme}//{host}/api/v1/repos/{owner}/{repo}/{'releases' if project.releases_only else 'tags'}"


class GiteaBackend(Backend):
    name = "Gitea"
    examples = ["https://codeberg.org/freedroid/freedroid-src.git", "https://codeberg.org/forgejo/forgejo"]
    shared_rate_limit = False  # any Gitea / Forgejo server: one answering 429 must not pause the others

    def get_versions(self, project, http):
        url = api_url(project)
        entries = http.get_json(url, conditional=True)
        if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
            raise BackendError(f"{project.name}: {url} did not answer a JSON list of "
                               f"{'releases' if project.releases_only else 'tags'}; is it a Gitea server?")
        found = []
        for entry in entries:
            name = entry.get("name") or entry.get("tag_name")
            if isinstance(name, str) and name:
                found.append(name)
        return found


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GiteaBackend)
