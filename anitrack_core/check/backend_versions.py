"""The network half of a check: ask the backend for versions, clean what it returns.

Nothing here touches the database, so it can run in any thread or process;
the outcome is then applied by :mod:`anitrack_core.check.apply`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime

from ..backend import Backend, RawVersion
from ..errors import AnitrackError, RateLimitError
from ..versions import VersionScheme
from .http import CheckHttp, HostSlots, HttpClient, NotModified, RateLimitPauses, Validators
from .spec import ProjectSpec

log = logging.getLogger(__name__)

#: raw version strings of this length or more are skipped, as the existing service does
MAX_VERSION_LENGTH = 50


@dataclass
class FetchOutcome:
    """What one backend call produced for one project."""

    spec: ProjectSpec
    #: cleaned raw versions: non-empty, not too long, not filtered out, no duplicates
    versions: list[RawVersion] = field(default_factory=list)
    #: the upstream answered 304: nothing new
    not_modified: bool = False
    #: the error message when the backend failed
    error: str | None = None
    #: when the upstream rate limit resets, if one was hit (aware UTC)
    rate_limit_reset: datetime | None = None
    #: validators of the upstream's full answer, to store for the next conditional request
    validators: Validators | None = None
    #: raw strings skipped for being too long
    too_long: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


def _clean(spec: ProjectSpec, found: list[RawVersion | str], scheme: VersionScheme) -> tuple[list[RawVersion], list[str]]:
    kept: list[RawVersion] = []
    too_long: list[str] = []
    seen: set[str] = set()
    for item in found:
        raw_version = item if isinstance(item, RawVersion) else RawVersion(str(item))
        raw = raw_version.version.strip() if isinstance(raw_version.version, str) else ""
        if not raw or raw in seen:
            continue
        seen.add(raw)
        if len(raw) >= MAX_VERSION_LENGTH:
            too_long.append(raw)
            log.info("%s: version %r skipped: too long", spec.name, raw)
            continue
        if scheme.is_filtered_out(raw):
            continue
        if raw != raw_version.version:
            raw_version = RawVersion(raw, raw_version.commit_url, raw_version.cursor)
        kept.append(raw_version)
    return kept, too_long


def check_client(http: HttpClient, spec: ProjectSpec, *, slots: HostSlots | None = None,
                 pauses: RateLimitPauses | None = None) -> CheckHttp:
    """The per-check client for *spec*: its insecure flag and the validators of its last answer.

    :param slots: per-host limits; :param pauses: the rate-limit pauses, keyed
        by backend name, that stop the requests of *spec*'s backend.
    """
    validators = (Validators(spec.http_etag, spec.http_last_modified)
                  if spec.http_etag or spec.http_last_modified else None)
    return http.for_check(insecure=spec.insecure, validators=validators, fallback_since=spec.newest_version_on,
                          slots=slots, pauses=pauses, pause_key=spec.backend if pauses is not None else None)


def ask_backend(spec: ProjectSpec, backend: Backend, http: HttpClient | CheckHttp,
                   scheme: VersionScheme) -> FetchOutcome:
    """Run *backend* for *spec* and return the cleaned outcome; never raises for upstream trouble.

    :param http: the process's client (a per-check client is made from it), or a
        ready per-check client.
    """
    started = time.monotonic()
    if isinstance(http, HttpClient):
        http = check_client(http, spec)
    outcome = FetchOutcome(spec)
    try:
        found = backend.get_versions(spec, http)
    except NotModified:
        outcome.not_modified = True
    except RateLimitError as exc:
        outcome.error, outcome.rate_limit_reset = str(exc), exc.reset_time
    except AnitrackError as exc:
        outcome.error = str(exc) or type(exc).__name__
    except Exception as exc:  # a plugin's bug must not stop the other checks
        log.exception("backend %s failed on project %s", backend.name, spec.name)
        outcome.error = f"{backend.name}: the backend failed unexpectedly: {type(exc).__name__}: {exc}"
    else:
        if not isinstance(found, (list, tuple)):
            outcome.error = f"{backend.name}: the backend returned {type(found).__name__}, not a list of versions"
        else:
            outcome.versions, outcome.too_long = _clean(spec, list(found), scheme)
            outcome.validators = http.new_validators
    outcome.seconds = time.monotonic() - started
    return outcome
