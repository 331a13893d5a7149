"""The ``custom`` backend: a regular expression over the page at the project's version_url.

The regex is the project's own, or the default one (``DEFAULT``, or no regex
at all), in which ``%(name)s`` stands for the project name.  The page is
fetched with a conditional request, so an unchanged page costs a 304.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.regex import DEFAULT_REGEX, expand_regex, versions_from_text
from anitrack_core.errors import BackendError

#: used until the engine calls configure() with the operator's regex_timeout setting
REGEX_TIMEOUT = 2.0


class CustomBackend(Backend):
    name = "custom"
    examples = ["https://subsurface-divelog.org/downloads/", "https://www.geany.org/Download/Releases"]
    default_regex = DEFAULT_REGEX
    more_info = ("Set version_url to a page listing the releases and, if the default does not find them, a "
                 "regular expression whose first group (or all groups, joined with '.') is the version; "
                 "%(name)s in it stands for the project name.")
    required_version_url = True
    shared_rate_limit = False  # any web server: one answering 429 must not pause everyone's checks
    regex_timeout = REGEX_TIMEOUT

    def configure(self, settings):
        """Called once by the check engine with the operator's settings."""
        self.regex_timeout = settings.regex_timeout

    def get_versions(self, project, http):
        if not project.version_url:
            raise BackendError(f"{project.name}: the custom backend needs a version_url")
        pattern = expand_regex(project.regex, project.name)
        response = http.get(project.version_url, conditional=True)
        return versions_from_text(response.text, pattern, project_name=project.name, url=project.version_url,
                                  timeout=self.regex_timeout)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(CustomBackend)
