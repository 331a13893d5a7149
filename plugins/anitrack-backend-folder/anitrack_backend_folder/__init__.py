"""The ``folder`` backend: versions in a download directory listing (an HTML index page).

Tarball names are matched with the default regex; when none matches, version
sub-directories (``href="1.2.3/"``) are taken instead.  A ``*`` in a path
segment of version_url is expanded first to the newest matching
sub-directory (``https://ftp.example.org/pub/foo/*/`` -> ``.../2.1/``).
"""

from __future__ import annotations

import fnmatch
import re
from urllib.parse import urlsplit, urlunsplit

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.check.regex import DEFAULT_REGEX
from anitrack_core.errors import BackendError
from anitrack_core.versions import RpmScheme

#: version sub-directories of a listing, when no tarball matches
FALLBACK_REGEX = r'href="(?:/files/)?([0-9][0-9.]+.*)/"'
_SUBDIR = re.compile(r'href="([^"?#]+)/"', re.IGNORECASE)
_RPM = RpmScheme()


def _newest_subdir(listing: str, glob: str) -> str | None:
    names = {link.rstrip("/").rsplit("/", 1)[-1] for link in _SUBDIR.findall(listing)}
    matching = [name for name in names if name and fnmatch.fnmatchcase(name, glob)]
    return max(matching, key=_RPM.sort_key) if matching else None


def expand_subdirs(url: str, http, project_name: str) -> str:
    """*url* with each ``*`` segment replaced by the newest matching sub-directory, left to right."""
    parts = urlsplit(url)
    segments = parts.path.split("/")
    for index, segment in enumerate(segments):
        if "*" not in segment:
            continue
        parent = urlunsplit(parts._replace(path="/".join(segments[:index]) + "/", query="", fragment=""))
        newest = _newest_subdir(http.fetch(parent).text, segment)
        if newest is None:
            raise BackendError(f"{project_name}: no directory matching {segment!r} at {parent}")
        segments[index] = newest
    return urlunsplit(parts._replace(path="/".join(segments)))


class FolderBackend(RegexPageBackend):
    name = "folder"
    examples = ["https://ftp.gnu.org/pub/gnu/gnash/", "https://subsurface-divelog.org/downloads/"]
    default_regex = DEFAULT_REGEX
    more_info = ("Set version_url to a directory listing with the release tarballs (or one directory per "
                 "version); '*' in the URL picks the newest matching sub-directory.")
    required_version_url = True
    shared_rate_limit = False  # any web server: one answering 429 must not pause everyone's checks
    fallback_regex = FALLBACK_REGEX  # the version sub-directories, when no tarball matches

    def get_versions(self, project, http):
        url = self.page_url(project)
        if "*" in urlsplit(url).path:
            url = expand_subdirs(url, http, project.name)
        return self.versions_in(self.fetch_page(url, http), project, url, http)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(FolderBackend)
