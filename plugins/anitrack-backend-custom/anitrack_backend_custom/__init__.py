"""The ``custom`` backend: a regular expression over the page at the project's version_url.

The regex is the project's own, or the default one (``DEFAULT``, or no regex
at all), in which ``%(name)s`` stands for the project name.  The page is
fetched with a conditional request, so an unchanged page costs a 304; an
error status (a 404, a 429...) is an error, never a page to scan.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.check.regex import DEFAULT_REGEX, expand_regex


class CustomBackend(RegexPageBackend):
    name = "custom"
    examples = ["https://subsurface-divelog.org/downloads/", "https://www.geany.org/Download/Releases"]
    default_regex = DEFAULT_REGEX
    more_info = ("Set version_url to a page listing the releases and, if the default does not find them, a "
                 "regular expression whose first group (or all groups, joined with '.') is the version; "
                 "%(name)s in it stands for the project name.")
    required_version_url = True
    shared_rate_limit = False  # any web server: one answering 429 must not pause everyone's checks

    def version_regex(self, project):
        return expand_regex(project.regex, project.name)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(CustomBackend)
