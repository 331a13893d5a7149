"""The HTTP side of a check: everything between a backend and its upstream.

* :mod:`~anitrack_core.check.http.client`: :class:`HttpClient` (one per
  process, pooled connections) and :class:`CheckHttp` (one per check: what a
  backend receives as ``http``; documented in ``docs/plugin_hooks.md``);
* :mod:`~anitrack_core.check.http.types`: :class:`FetchPolicy`,
  :class:`HttpResponse`, :class:`Validators` and the errors;
* :mod:`~anitrack_core.check.http.limits`: per-host slots and rate-limit pauses;
* :mod:`~anitrack_core.check.http.guard`: which addresses an upstream may be
  (the SSRF address policy);
* :mod:`~anitrack_core.check.http.transport`: the requests adapter that
  connects only to addresses the guard checked, under the check's deadline.

Import the public names from this package.
"""

from ...errors import RateLimitError
from .client import CheckHttp, HttpClient, status_error
from .limits import HostSlots, RateLimitPauses, rate_limit_error, rate_limit_reset
from .types import (
    EPOCH_HTTP_DATE,
    BlockedAddressError,
    FetchError,
    FetchPolicy,
    HttpResponse,
    NotModified,
    Validators,
    default_user_agent,
)

__all__ = [
    "EPOCH_HTTP_DATE", "BlockedAddressError", "CheckHttp", "FetchError", "FetchPolicy", "HostSlots", "HttpClient",
    "HttpResponse", "NotModified", "RateLimitError", "RateLimitPauses", "Validators", "default_user_agent",
    "rate_limit_error", "rate_limit_reset", "status_error",
]
