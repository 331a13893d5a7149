"""The ``BitBucket`` backend: the tags of a repository on bitbucket.org.

The repository ``<workspace>/<repo>`` comes from version_url (either that
pair or the repository's address) or else from a bitbucket.org homepage.  The
backend asks the Bitbucket Cloud API for its tags, newest first:
``https://api.bitbucket.org/2.0/repositories/<workspace>/<repo>/refs/tags?sort=-target.date``,
and reads the ``name`` of the entries of the first page.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.http import FetchError
from anitrack_core.errors import BackendError, RateLimitError

WEB = "https://bitbucket.org/"


class BitBucketBackend(Backend):
    name = "BitBucket"
    examples = ["https://bitbucket.org/zzzeek/sqlalchemy", "https://bitbucket.org/cherrypy/cherrypy"]
    #: the API (a test may point it to a fake upstream)
    api = "https://api.bitbucket.org"

    @classmethod
    def tags_url(cls, project) -> str:
        """The API URL of the repository's tags, newest first."""
        version_url = (project.version_url or "").strip()
        homepage = (project.homepage or "").strip()
        if version_url:
            path = version_url.removeprefix(WEB)
        elif homepage.startswith(WEB):
            path = homepage[len(WEB):]
        else:
            path = ""
        # <workspace>/<repo>, possibly followed by a page of the repository (/downloads, /src/master...)
        segments = path.split("/")
        if len(segments) < 2 or not segments[0] or not segments[1] or ":" in segments[0]:
            raise BackendError(f"Project {project.name} was incorrectly set up: set version_url to "
                               "<workspace>/<repository> or homepage to https://bitbucket.org/<workspace>/<repository>")
        return f"{cls.api}/2.0/repositories/{segments[0]}/{segments[1]}/refs/tags?sort=-target.date"

    def get_versions(self, project, http):
        url = self.tags_url(project)
        try:
            answer = http.get_json(url, conditional=True)
        except RateLimitError:
            raise
        except FetchError as exc:
            raise BackendError(f"Could not retrieve versions from Bitbucket API: {exc}") from None
        values = answer.get("values") if isinstance(answer, dict) else None
        if not isinstance(values, list):
            raise BackendError("Could not retrieve versions from Bitbucket API: "
                               f'{url} did not answer {{"values": [...]}}')
        return [entry["name"] for entry in values
                if isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"]]


@hookimpl
def anitrack_register_backends(registry):
    registry.add(BitBucketBackend)
