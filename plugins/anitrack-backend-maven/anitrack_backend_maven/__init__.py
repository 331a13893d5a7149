"""The ``Maven Central`` backend and the ``maven`` ecosystem: Java artifacts on Maven Central.

The versions are the sub-directories of the artifact's directory on
``https://repo1.maven.org/maven2/``, whose names start with a digit.  The
artifact is named by its coordinates ``groupId:artifactId``, taken from
version_url, or from the project name when version_url is empty
(``org.codehaus.plexus:plexus-maven-plugin`` ->
``https://repo1.maven.org/maven2/org/codehaus/plexus/plexus-maven-plugin/``);
a homepage that is already such a directory is used as it is.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError

#: a homepage on a Maven repository host, used as the directory to list
REPOSITORY_HOMEPAGE = re.compile(r"https?://repo\d+\.maven\.org/", re.IGNORECASE)
#: groupId:artifactId, optionally followed by more coordinates (":version", ignored)
COORDINATES = re.compile(r"\s*([^:/\s]+):([^:/\s]+)(?::\S*)?\s*")
#: links of the directory listing whose text starts with a digit
VERSION_REGEX = r"<a[^>]+>(\d[^</]*)"


class MavenBackend(RegexPageBackend):
    name = "Maven Central"
    examples = ["https://repo1.maven.org/maven2/plexus/plexus-compiler/",
                "https://repo1.maven.org/maven2/com/google/inject/guice/"]
    more_info = ("Set version_url to the artifact's coordinates groupId:artifactId (for example "
                 "com.google.inject:guice); when it is empty the name is read as the coordinates. A homepage "
                 "that is the artifact's directory on repo1.maven.org is used as it is.")
    #: the repository's root (tests point it at a fake upstream)
    api_base = "https://repo1.maven.org/maven2"
    not_found = "no such artifact on Maven Central"

    def upstream_url(self, project) -> str | None:
        """The directory listing the artifact's versions, or None when *project* names no artifact."""
        homepage = (project.homepage or "").strip()
        if REPOSITORY_HOMEPAGE.match(homepage):
            return homepage
        match = COORDINATES.fullmatch(project.version_url or project.name or "")
        if match is None:
            return None
        group, artifact = match.groups()
        return f"{self.api_base}/{quote(group.replace('.', '/'))}/{quote(artifact)}/"

    def page_url(self, project):
        url = self.upstream_url(project)
        if url is None:
            raise BackendError(
                f"Artifact needs to be in format groupId:artifactId: set version_url (or the name) of "
                f"{project.name} to it, for example org.codehaus.plexus:plexus-maven-plugin")
        return url

    def version_regex(self, project):
        return VERSION_REGEX


class MavenEcosystem(Ecosystem):
    name = "maven"
    default_backend = "Maven Central"


@hookimpl
def anitrack_register_backends(registry):
    registry.add(MavenBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(MavenEcosystem)
