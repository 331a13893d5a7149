"""A backend that reads one page and finds the versions in it with a regex.

Many upstreams publish the versions of a project on a single page: a package
page (Hackage, MetaCPAN), a download page (Launchpad), a directory listing
(GNU, Debian's pool, Maven Central) or a tags page (cgit, Gogs).
:class:`RegexPageBackend` does the common part: fetch
:meth:`~RegexPageBackend.page_url` conditionally with ``http.fetch`` (a rate
limit or an error status is an error, never a page to scan), then run
:meth:`~RegexPageBackend.version_regex` (Anitya's default regex unless
overridden) over the text with ``http.find_versions``, under the operator's
``regex_timeout``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from anitrack_core.backend import Backend
from anitrack_core.check.regex import expand_regex
from anitrack_core.errors import BackendError


class RegexPageBackend(Backend):
    """Subclass this, set ``name`` and implement :meth:`page_url` (or set ``required_version_url``).

    Override :meth:`version_regex` for another pattern than the default one,
    set :attr:`fallback_regex` for a second pattern tried when the first finds
    nothing, or override :meth:`versions_in` to read the page some other way.
    """

    #: what a 404 means, e.g. ``"no such package on Hackage"``: the error then
    #: reads ``<url>: server responded with status 404 "Not Found" (<not_found>)``
    not_found: ClassVar[str | None] = None
    #: tried over the page when :meth:`version_regex` finds no version (e.g. the
    #: version sub-directories of a listing that holds no tarball)
    fallback_regex: ClassVar[str | None] = None

    def page_url(self, project: Any) -> str:
        """The URL of the page to read for *project*; raise a BackendError when the project names none.

        By default, for a backend with ``required_version_url``: the project's version_url.
        """
        if not self.required_version_url:
            raise NotImplementedError(f"backend {self.name!r} does not implement page_url()")
        if not project.version_url:
            raise BackendError(f"{project.name}: the {self.name} backend needs a version_url")
        return project.version_url

    def version_regex(self, project: Any) -> str:
        """The pattern run over the page: the default regex for the stripped project name."""
        return expand_regex(None, project.name.strip())

    def get_versions(self, project, http):
        url = self.page_url(project)
        return self.versions_in(self.fetch_page(url, http), project, url, http)

    def fetch_page(self, url: str, http: Any) -> str:
        """The text of *url*, asked conditionally; a rate limit or an error status raises."""
        return http.fetch(url, conditional=True, not_found=self.not_found).text

    def versions_in(self, text: str, project: Any, url: str, http: Any) -> list[str]:
        """The versions :meth:`version_regex` (else :attr:`fallback_regex`) finds in the page *text*
        (``<name>: no upstream version found`` when neither finds any)."""
        try:
            return http.find_versions(text, self.version_regex(project), url=url, project_name=project.name)
        except BackendError:
            if self.fallback_regex is None:
                raise
            return http.find_versions(text, self.fallback_regex, url=url, project_name=project.name)
