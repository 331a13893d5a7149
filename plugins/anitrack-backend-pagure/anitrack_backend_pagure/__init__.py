"""The ``pagure`` backend: the git tags of a project hosted on pagure.io.

The project name is the pagure.io project path (``pagure``, or
``<namespace>/<project>`` for namespaced projects); the backend reads
``https://pagure.io/api/0/<name>/git/tags``, ``{"tags": ["0.1", ...]}``.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.http import FetchError
from anitrack_core.errors import BackendError


class PagureBackend(Backend):
    name = "pagure"
    examples = ["https://pagure.io/pagure", "https://pagure.io/flask-multistatic"]
    #: the pagure instance (a test may point it to a fake upstream)
    site = "https://pagure.io"

    @classmethod
    def tags_url(cls, name: str) -> str:
        name = name.strip().strip("/")
        if not name:
            raise BackendError("Project was incorrectly set up: its name must be the pagure.io project "
                               "(the part after https://pagure.io/)")
        return f"{cls.site}/api/0/{name}/git/tags"

    def get_versions(self, project, http):
        url = self.tags_url(project.name)
        response = http.get(url, headers={"Accept": "application/json"}, conditional=True)
        http.raise_for_rate_limit(response)
        if not response.ok:
            detail = _api_error(response)
            raise BackendError(f'{project.name}: Server responded with status "{response.status}": '
                               f'"{response.reason}" - {url}{detail}')
        answer = response.json()
        tags = answer.get("tags", []) if isinstance(answer, dict) else None
        if not isinstance(tags, list):
            raise BackendError(f'{project.name}: {url} did not answer {{"tags": [...]}}; is it the pagure API?')
        return [tag for tag in tags if isinstance(tag, str)]


def _api_error(response) -> str:
    """The ``error`` the pagure API gives with a failure (``Project not found``), as `` (...)``."""
    try:
        answer = response.json()
    except FetchError:  # not JSON: no detail
        return ""
    error = answer.get("error") if isinstance(answer, dict) else None
    return f" ({error})" if isinstance(error, str) and error else ""


@hookimpl
def anitrack_register_backends(registry):
    registry.add(PagureBackend)
