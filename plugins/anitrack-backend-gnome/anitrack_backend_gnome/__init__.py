"""The ``GNOME`` backend: the releases of a GNOME module on download.gnome.org.

Every module has a directory ``https://download.gnome.org/sources/<module>/``
holding a ``cache.json`` index: a JSON list whose items include a mapping
``{"<module>": ["1.0.0", "1.0.1", ...]}``, every version released.  When the
index is missing or unreadable, the version directories of the listing
(``href="3.38/"``, major.minor only) are taken instead.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.check.http import FetchError
from anitrack_core.errors import BackendError

#: version directories of the module's listing, when cache.json cannot be used
DIRECTORY_REGEX = r'href="([0-9][0-9.]*)/"'


class GnomeBackend(RegexPageBackend):
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

    def page_url(self, project):
        return self.module_url(project.name)

    def version_regex(self, project):
        return DIRECTORY_REGEX

    def get_versions(self, project, http):
        found = self._from_index(http, self.page_url(project) + "cache.json", project.name.strip())
        return found if found is not None else super().get_versions(project, http)

    @staticmethod
    def _from_index(http, url: str, name: str) -> list[str] | None:
        """The versions cache.json lists for *name*, or None when it cannot be used.

        A 304 (nothing new) and rate limits are not "cannot be used": they propagate.
        """
        try:
            index = http.get_json(url, conditional=True)
        except FetchError:
            return None
        for item in index if isinstance(index, list) else []:
            if isinstance(item, dict) and isinstance(item.get(name), list):
                return [version for version in item[name] if isinstance(version, str)]
        return None


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GnomeBackend)
