"""A backend that reads one page and finds the versions in it with a regex.

Many upstreams publish the versions of a project on a single page: a package
page (Hackage, MetaCPAN), a download page (Launchpad) or a directory listing
(GNU, Debian's pool).  :class:`RegexPageBackend` does the common part: fetch
:meth:`~RegexPageBackend.page_url` conditionally, honour a rate limit, turn an
error status into a :class:`~anitrack_core.errors.BackendError`, then run
:meth:`~RegexPageBackend.version_regex` (Anitya's default regex unless
overridden) over the text.
"""

from __future__ import annotations

from typing import Any, ClassVar

from anitrack_core.backend import Backend
from anitrack_core.check.regex import expand_regex, versions_from_text
from anitrack_core.errors import BackendError


class RegexPageBackend(Backend):
    """Subclass this, set ``name`` and implement :meth:`page_url`.

    Override :meth:`version_regex` for another pattern than the default one,
    or :meth:`versions_in` to read the page some other way.
    """

    #: seconds a regex may run on one page
    regex_timeout: ClassVar[float] = 2.0
    #: what a 404 means, e.g. ``"no such package on Hackage"``: the error is then
    #: ``<name>: <not_found>: <url> (HTTP 404)`` and other statuses say
    #: ``<url>: server responded with status <status> "<reason>"``; None (the
    #: default): every error status is ``<name>: Server responded with status
    #: "<status>": "<reason>" - <url>``, as in Anitya
    not_found: ClassVar[str | None] = None

    def page_url(self, project: Any) -> str:
        """The URL of the page to read for *project*."""
        raise NotImplementedError(f"backend {self.name!r} does not implement page_url()")

    def version_regex(self, project: Any) -> str:
        """The pattern run over the page: the default regex for the stripped project name."""
        return expand_regex(None, project.name.strip())

    def get_versions(self, project, http):
        url = self.page_url(project)
        return self.versions_in(self.fetch_page(project, url, http), project, url)

    def fetch_page(self, project: Any, url: str, http: Any) -> str:
        """The text of *url*, asked conditionally; an error status raises :meth:`status_error`."""
        response = http.get(url, conditional=True)
        http.raise_for_rate_limit(response)
        if not response.ok:
            raise self.status_error(project, url, response)
        return response.text

    def status_error(self, project: Any, url: str, response: Any) -> BackendError:
        """The error for an answer that is not OK (see :attr:`not_found`)."""
        if self.not_found is None:
            return BackendError(f'{project.name}: Server responded with status "{response.status}": '
                                f'"{response.reason}" - {url}')
        if response.status == 404:
            return BackendError(f"{project.name}: {self.not_found}: {url} (HTTP 404)")
        return BackendError(f'{url}: server responded with status {response.status} "{response.reason}"')

    def versions_in(self, text: str, project: Any, url: str) -> list[str]:
        """The versions :meth:`version_regex` finds in the page *text*."""
        return self.find_versions(text, self.version_regex(project), project, url)

    def find_versions(self, text: str, pattern: str, project: Any, url: str) -> list[str]:
        """:func:`~anitrack_core.check.regex.versions_from_text` with this backend's timeout;
        raises ``<name>: no upstream version found`` when *pattern* matches nothing."""
        return versions_from_text(text, pattern, project_name=project.name, url=url, timeout=self.regex_timeout)
