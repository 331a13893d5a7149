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
        answer = http.get_json(url, conditional=True, detail=_api_error)
        tags = answer.get("tags", []) if isinstance(answer, dict) else None
        if not isinstance(tags, list):
            raise BackendError(f'{project.name}: {url} did not answer {{"tags": [...]}}; is it the pagure API?')
        return [tag for tag in tags if isinstance(tag, str)]


def _api_error(response) -> str:
    """The ``error`` the pagure API gives with a failure (``Project not found``), or ""."""
    try:
        answer = response.json()
    except FetchError:  # not JSON: no detail
        return ""
    error = answer.get("error") if isinstance(answer, dict) else None
    return error if isinstance(error, str) else ""


@hookimpl
def anitrack_register_backends(registry):
    registry.add(PagureBackend)
