"""The base class of backends: what knows how to ask one kind of upstream for versions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from collections.abc import Mapping
from typing import Any, ClassVar


@dataclass(frozen=True)
class RawVersion:
    """One version as the upstream published it (prefix not stripped)."""

    version: str
    commit_url: str | None = None
    #: a backend-specific position of this version upstream (stored for the newest version)
    cursor: str | None = None


@dataclass(frozen=True)
class FeedEntry:
    """One release announced by an upstream's feed of recent releases (:meth:`Backend.recent_releases`)."""

    #: the project name as the upstream spells it (matched case-insensitively)
    name: str
    #: the version released
    version: str
    #: the project's homepage as the feed gives it, if any
    homepage: str | None = None


class Backend:
    """Subclass this, set the class attributes and implement :meth:`get_versions`.

    Backends never touch the database, never create their own HTTP sessions and
    never read global configuration: everything they need is passed in.
    """

    #: shown to users, stored in ``project.backend`` and used in URLs ("PyPI")
    name: ClassVar[str]
    #: example project URLs, shown in the web UI
    examples: ClassVar[list[str]] = []
    #: regular expression used when the project sets none (None: the global default)
    default_regex: ClassVar[str | None] = None
    #: a description for users (how to fill the project fields)
    more_info: ClassVar[str | None] = None
    #: scheme used when neither the project nor its ecosystem chooses one (None: global default, RPM)
    default_version_scheme: ClassVar[str | None] = None
    #: ``;``-separated version filter for projects that set none and whose ecosystem gives none
    #: (versions containing one of the parts are left out)
    default_version_filter: ClassVar[str | None] = None
    #: ``;``-separated pre-release filter for projects that set none and whose ecosystem gives none
    default_pre_release_filter: ClassVar[str | None] = None
    #: how often projects of this backend are checked
    check_interval: ClassVar[timedelta] = timedelta(seconds=3600)
    #: whether ``version_url`` is mandatory for projects of this backend
    required_version_url: ClassVar[bool] = False
    #: True when the backend talks to one upstream service whose rate limit is shared by all its
    #: projects (a limit then pauses the whole backend); False for backends that fetch any URL
    #: (a limit then only reschedules the project that hit it)
    shared_rate_limit: ClassVar[bool] = True
    #: requests in flight at once that the index services this backend asks tolerate, by host name
    #: (``{"pypi.org": 64}``); a host no backend names gets the operator's ``check_per_host`` (4), which
    #: suits a project's own web server.  The bound belongs to the host: every backend's requests to it
    #: share it (the smallest declared holds), and the operator's ``[check.host_concurrency]`` wins.  Set
    #: it on the instance in ``configure`` when the host comes from a setting (a mirror's URL).
    host_concurrency: ClassVar[Mapping[str, int]] = {}

    def get_versions(self, project: Any, http: Any) -> list[RawVersion | str]:
        """Return every version the upstream publishes for *project*.

        :param project: an :class:`anitrack_core.check.spec.ProjectSpec`: the
            project's fields (name, homepage, version_url, regex, insecure,
            releases_only, latest_version_cursor, version_filter...).
        :param http: an :class:`anitrack_core.check.http.CheckHttp`, the check
            engine's HTTP client for this check (conditional requests, limits,
            the address guard), documented in ``docs/plugin_hooks.md`` ("The
            ``http`` object").  ``http.fetch`` / ``http.get_json`` raise on a
            rate limit and on an error status; ``http.find_versions`` runs a
            regex under the operator's timeout.  Pass ``conditional=True`` on
            the request whose answer decides whether anything changed; a 304
            then ends the check as "nothing new" without the backend seeing it.
        :raises anitrack_core.errors.BackendError: the upstream could not be read.
        :raises anitrack_core.errors.RateLimitError: the upstream rate limit is
            reached; carries the reset time.
        """
        raise NotImplementedError(f"backend {self.name!r} does not implement get_versions()")

    def recent_releases(self, http: Any) -> list[FeedEntry]:
        """Optional: the releases the upstream announced recently, newest first when it says so.

        Backends whose upstream publishes a feed of recent releases (a package
        index's "latest uploads") override this; the scheduler then checks the
        stored projects it names sooner (:mod:`anitrack_core.check.feeds`).  Feeds
        only trigger checks of known projects; they never create projects.

        :param http: an :class:`anitrack_core.check.http.CheckHttp` (no conditional request needed).
        :raises anitrack_core.errors.BackendError: the feed could not be read.
        """
        return []
