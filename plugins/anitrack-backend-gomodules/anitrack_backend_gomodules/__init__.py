"""The ``Go modules`` backend and the ``go`` ecosystem: Go modules, from a module proxy.

Versions come from the GOPROXY protocol's version list,
``<proxy>/<escaped module path>/@v/list``: plain text, one version per line.
The module path is escaped as the protocol says (every upper-case letter
becomes ``!`` and its lower-case letter).  The proxy is the setting
``gomodules.proxy`` (default ``https://proxy.golang.org``).

* Pseudo-versions (``v0.0.0-20240101120000-abcdef123456``: a commit, not a
  release) are never reported, even from a proxy that lists them.
* ``+incompatible`` versions (a major version >= 2 without a ``/vN`` module
  path) are reported; the ecosystem's ``default_version_filter`` hides them
  unless the project sets a version filter of its own.
* Projects of the ecosystem are ordered with the ``Semantic`` scheme by
  default (its ``v`` prefix is ignored).

The module index (``gomodules.index``, default
``https://index.golang.org/index``) is read as the feed of recent releases:
the versions published in the last hour (:meth:`GoModulesBackend.recent_releases`).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote, urlencode

from anitrack_core import hookimpl
from anitrack_core.config import check_http_url
from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError

PROXY = "https://proxy.golang.org"
INDEX = "https://index.golang.org/index"
#: how far back the feed asks the module index
FEED_WINDOW = timedelta(hours=1)
#: most index entries asked for in one feed read (the index's own maximum)
FEED_LIMIT = 2000

#: the characters of a module path (letters, digits, ``-._~``, ``+`` and ``/`` between elements)
_MODULE_PATH = re.compile(r"^[A-Za-z0-9._~+-]+(?:/[A-Za-z0-9._~+-]+)*$")
#: a semantic version as the proxy lists it: ``v`` MAJOR.MINOR.PATCH, then pre-release / build
_VERSION = re.compile(r"^v\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
#: the three forms of a pseudo-version: ``vX.0.0-T-H``, ``vX.Y.Z-pre.0.T-H``, ``vX.Y.Z-0.T-H``
#: (T a 14-digit UTC time, H a 12-character commit hash prefix), with any build suffix
_PSEUDO = re.compile(r"^v\d+\.\d+\.\d+-(?:[0-9A-Za-z.-]*\.)?\d{14}-[0-9a-f]{12}(?:\+[0-9A-Za-z.-]+)?$")


def _now() -> datetime:
    return datetime.now(timezone.utc)


def escape_path(module: str) -> str:
    """*module* as the proxy protocol spells it in URLs: ``A`` becomes ``!a``."""
    return "".join(f"!{char.lower()}" if "A" <= char <= "Z" else char for char in module)


def is_pseudo_version(version: str) -> bool:
    """True for a pseudo-version (a commit, not a release)."""
    return bool(_PSEUDO.match(version))


def module_path(project: Any) -> str:
    """The module path of *project* (its name), checked.

    :raises BackendError: the name cannot be a module path.
    """
    name = (project.name or "").strip()
    if not _MODULE_PATH.match(name) or any(element in (".", "..") for element in name.split("/")):
        raise BackendError(f"{project.name!r} is not a Go module path (such as golang.org/x/text): "
                           "set the project's name to the module path")
    return name


def _first_line(response: Any) -> str:
    line = response.text.strip().splitlines()[0].strip() if response.text.strip() else ""
    return line[:300]


def _detail(response: Any) -> str:
    """The proxy's own word on a missing module (404 or 410: ``not found: ...``)."""
    if response.status in (404, 410):
        said = _first_line(response)
        return "no such module on the Go module proxy" + (f": {said}" if said else "")
    return _first_line(response) if response.status == 400 else ""


class GoModulesBackend(Backend):
    name = "Go modules"
    examples = ["https://pkg.go.dev/golang.org/x/text", "https://pkg.go.dev/github.com/BurntSushi/toml"]
    more_info = ("Set the name to the module path (golang.org/x/text, github.com/BurntSushi/toml); homepage "
                 "and version_url are not used to find it. Versions come from the Go module proxy (setting "
                 "gomodules.proxy); pseudo-versions are never reported, and +incompatible versions are hidden "
                 "by the ecosystem's default version filter.")
    default_version_scheme = "Semantic"
    #: the module proxy (the setting ``gomodules.proxy``; tests point it at a fake upstream)
    api_base = PROXY
    #: the module index read as the feed ("" for none)
    feed_url = INDEX

    def configure(self, settings: Any) -> None:
        """Take ``gomodules.proxy`` and ``gomodules.index`` from the settings."""
        self.api_base = (settings.get("gomodules.proxy") or PROXY).rstrip("/")
        index = settings.get("gomodules.index")
        self.feed_url = INDEX if index is None else index.strip()

    def upstream_url(self, project: Any) -> str:
        """The version list of *project*'s module on the proxy."""
        escaped = quote(escape_path(module_path(project)), safe="/!~")
        return f"{self.api_base.rstrip('/')}/{escaped}/@v/list"

    def get_versions(self, project: Any, http: Any) -> list[str]:
        url = self.upstream_url(project)
        response = http.fetch(url, conditional=True, detail=_detail)
        versions = []
        for line in response.text.splitlines():
            version = line.strip()
            if not version:
                continue
            if not _VERSION.match(version):
                raise BackendError(f"{url}: unexpected answer from the Go module proxy "
                                   f"(not a list of versions: {version[:80]!r})")
            if not is_pseudo_version(version) and version not in versions:
                versions.append(version)
        return versions

    def recent_releases(self, http: Any) -> list[FeedEntry]:
        """The versions the module index received in the last :data:`FEED_WINDOW` (pseudo-versions left out)."""
        if not self.feed_url:
            return []
        since = (_now() - FEED_WINDOW).strftime("%Y-%m-%dT%H:%M:%SZ")
        url = f"{self.feed_url}?{urlencode({'since': since, 'limit': FEED_LIMIT})}"
        entries = []
        for number, line in enumerate(http.fetch(url).text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError:
                raise BackendError(f"{url}: unexpected answer from the module index "
                                   f"(line {number} is not JSON)") from None
            path = item.get("Path") if isinstance(item, dict) else None
            version = item.get("Version") if isinstance(item, dict) else None
            if isinstance(path, str) and isinstance(version, str) and path and _VERSION.match(version) \
                    and not is_pseudo_version(version):
                entries.append(FeedEntry(path, version, f"https://pkg.go.dev/{path}"))
        return entries


class GoEcosystem(Ecosystem):
    name = "go"
    default_backend = "Go modules"
    default_version_scheme = "Semantic"
    aliases = ["golang"]
    default_version_filter = "+incompatible"


@hookimpl
def anitrack_declare_settings(settings):
    settings.add("gomodules.proxy", default=PROXY, check=check_http_url,
                 help="the Go module proxy the 'Go modules' backend asks (GOPROXY protocol; one URL)")
    settings.add("gomodules.index", default=INDEX, check=check_http_url,
                 help="the Go module index read as the feed of recent releases (empty: no feed)")


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GoModulesBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(GoEcosystem)
