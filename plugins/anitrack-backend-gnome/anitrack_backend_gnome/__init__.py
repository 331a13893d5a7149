"""The ``GNOME`` backend: the releases of a GNOME module on download.gnome.org.

Every module has a directory ``https://download.gnome.org/sources/<module>/``
holding a ``cache.json`` index: a JSON list whose items include a mapping
``{"<module>": ["1.0.0", "1.0.1", ...]}``, every version released.  When the
index is missing or unreadable, the version directories of the listing
(``href="3.38/"``, major.minor only) are taken instead.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.http import FetchError
from anitrack_core.check.regex import versions_from_text
from anitrack_core.errors import BackendError, RateLimitError

REGEX_TIMEOUT = 2.0
#: version directories of the module's listing, when cache.json cannot be used
DIRECTORY_REGEX = r'href="([0-9][0-9.]*)/"'


class GnomeBackend(Backend):
    name = "GNOME"
    examples = ["https://download.gnome.org/sources/control-center/",
                "https://download.gnome.org/sources/evolution-caldav/"]
    #: the download site (a test may point it to a fake upstream)
    site = "https://download.gnome.org"

    @classmethod
    def module_url(cls, name: str) -> str:
        name = name.strip()
        if not name or "/" in name:
            raise BackendError(f"Project {name!r} was incorrectly set up: its name must be the module name of "
                               "https://download.gnome.org/sources/<module>/")
        return f"{cls.site}/sources/{name}/"

    def get_versions(self, project, http):
        name = project.name.strip()
        directory = self.module_url(name)
        found = self._from_index(http, directory + "cache.json", name)
        if found is not None:
            return found
        response = http.get(directory, conditional=True)
        http.raise_for_rate_limit(response)
        if not response.ok:
            raise BackendError(f'{project.name}: Server responded with status "{response.status}": '
                               f'"{response.reason}" - {directory} (and its cache.json could not be used either)')
        return versions_from_text(response.text, DIRECTORY_REGEX, project_name=project.name, url=directory,
                                  timeout=REGEX_TIMEOUT)

    @staticmethod
    def _from_index(http, url: str, name: str) -> list[str] | None:
        """The versions cache.json lists for *name*, or None when it cannot be used.

        A 304 (nothing new) and rate limits are not "cannot be used": they propagate.
        """
        try:
            response = http.get(url, conditional=True)
            http.raise_for_rate_limit(response)
            if not response.ok:
                return None
            index = response.json()
        except RateLimitError:
            raise
        except FetchError:
            return None
        for item in index if isinstance(index, list) else []:
            if isinstance(item, dict) and isinstance(item.get(name), list):
                return [version for version in item[name] if isinstance(version, str)]
        return None


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GnomeBackend)
