"""The ``Container registry`` backend and the ``oci`` ecosystem: tags of container images.

The tags come from the OCI distribution API's tag list,
``https://<registry>/v2/<repository>/tags/list?n=1000``, following the
``Link: <...>; rel="next"`` header to the next pages (at most
:data:`MAX_PAGES`).  A project's name is the image reference without tag,
``registry/namespace/image``; a name whose first element is no host name
(``nginx``, ``owner/image``) is on Docker Hub, as the docker client reads it,
and Docker Hub's official images are ``docker.io/library/<image>``.  Docker
Hub's API is at ``registry-1.docker.io``; ``version_url``, when set, is the
registry's API address for any other registry whose API is elsewhere.

A registry that answers ``401`` with ``WWW-Authenticate: Bearer realm=...,
service=..., scope=...`` gets an anonymous token from the realm (the token
flow of the Docker registry token specification) and the request is made
again with it; a registry that asks for a password (Basic) is reported as
such: private images are not supported.

Tags that are not versions are hidden by :data:`DEFAULT_TAG_FILTER`, the
backend's ``default_version_filter``: a project that sets its own version
filter replaces it.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.http import FetchError
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError

#: tags asked for per page (a registry may answer fewer)
PAGE_SIZE = 1000
#: pages read at most
MAX_PAGES = 20
DOCKER_HUB = "docker.io"
DOCKER_HUB_API = "https://registry-1.docker.io"
_DOCKER_HUB_NAMES = {"docker.io", "index.docker.io", "registry-1.docker.io", "registry.hub.docker.com"}

#: tags that are no versions: moving names, commit and digest tags, signatures and attestations,
#: architecture-specific tags (``;``-separated pieces: a tag containing one is hidden)
DEFAULT_TAG_FILTER = ";".join([
    "latest", "nightly", "edge", "stable", "mainline", "master", "main", "develop",
    "sha-", "sha256-", ".sig", ".att", ".sbom",
    "-amd64", "-arm64", "-arm32", "-armv6", "-armv7", "-armhf", "-ppc64le", "-s390x", "-i386",
    "-386", "-riscv64", "-windows",
])

#: a repository path: lower-case components separated by ``/`` (distribution specification grammar)
_REPOSITORY = re.compile(r"^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$")
_REGISTRY = re.compile(r"^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d+)?$")
_CHALLENGE_PARAM = re.compile(r'(\w+)\s*=\s*(?:"([^"]*)"|([^\s,]*))')
_NEXT_LINK = re.compile(r'<([^>]*)>\s*;[^,]*?\brel\s*=\s*"?next"?', re.I)


def parse_reference(name: str) -> tuple[str, str]:
    """``(registry, repository)`` of an image reference without tag: ``docker.io/library/nginx``.

    :raises BackendError: *name* is not such a reference.
    """
    text = (name or "").strip()
    if "@" in text or ":" in text.rsplit("/", 1)[-1]:
        raise BackendError(f"{name!r}: give the image without tag or digest (such as docker.io/library/nginx)")
    first, _, rest = text.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        registry, repository = first.lower(), rest
    else:  # no registry: Docker Hub, as the docker client reads it
        registry, repository = DOCKER_HUB, text
    if registry in _DOCKER_HUB_NAMES:
        registry = DOCKER_HUB
        if "/" not in repository:
            repository = f"library/{repository}"
    if not _REGISTRY.match(registry) or not _REPOSITORY.match(repository):
        raise BackendError(f"{name!r} is not an image reference: set the name to registry/namespace/image "
                           "(such as docker.io/library/nginx or ghcr.io/owner/image)")
    return registry, repository


def _registry_errors(response: Any) -> str:
    """The registry's ``errors`` (``CODE: message``) of an error answer, or ""."""
    try:
        errors = response.json().get("errors")
    except (FetchError, AttributeError):
        return ""
    if not isinstance(errors, list):
        return ""
    said = [f"{e.get('code')}: {e.get('message')}" if e.get("code") else str(e.get("message"))
            for e in errors if isinstance(e, dict) and (e.get("code") or e.get("message"))]
    return "; ".join(said)[:300]


def _detail(response: Any) -> str:
    said = _registry_errors(response)
    if response.status == 404:
        return "; ".join(part for part in ("no such image on the registry", said) if part)
    if response.status == 401:
        return "; ".join(part for part in (said, "the image does not exist or is private") if part)
    return said


def challenge(header: str) -> tuple[str, dict[str, str]]:
    """The scheme (lower case) and parameters of a ``WWW-Authenticate`` header."""
    scheme, _, rest = (header or "").strip().partition(" ")
    params = {key.lower(): quoted if quoted or not bare else bare
              for key, quoted, bare in _CHALLENGE_PARAM.findall(rest)}
    return scheme.lower(), params


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def next_page(link: str | None, url: str) -> str | None:
    """The next page's URL from a ``Link`` header, resolved against *url*, or None."""
    found = _NEXT_LINK.search(link or "")
    return urljoin(url, found.group(1)) if found and found.group(1) else None


class ContainerRegistryBackend(Backend):
    name = "Container registry"
    examples = ["https://hub.docker.com/_/nginx", "https://github.com/orgs/home-assistant/packages",
                "https://quay.io/repository/prometheus/prometheus"]
    more_info = ("Set the name to the image: registry/namespace/image (docker.io/library/nginx for Docker Hub's "
                 "official images, ghcr.io/owner/image, quay.io/org/image). version_url is only needed when the "
                 "registry's API is not at https://<registry>/. Tags that are not versions (latest, sha-..., "
                 "architecture suffixes) are hidden by the default version filter; set a version filter of your "
                 "own to replace it. Public images only.")
    default_version_filter = DEFAULT_TAG_FILTER
    #: any registry: a rate limit only reschedules the project that hit it
    shared_rate_limit = False

    def api_base(self, project: Any, registry: str) -> str:
        """Where the registry's API is: version_url when set, else ``https://<registry>``."""
        given = (project.version_url or "").strip()
        if given:
            parts = urlsplit(given)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise BackendError(f"{project.name}: version_url must be the registry's http(s) address, "
                                   f"not {given!r}")
            return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"
        return DOCKER_HUB_API if registry == DOCKER_HUB else f"https://{registry}"

    def upstream_url(self, project: Any) -> str:
        """The first page of *project*'s tag list."""
        registry, repository = parse_reference(project.name)
        return f"{self.api_base(project, registry)}/v2/{repository}/tags/list?n={PAGE_SIZE}"

    def get_versions(self, project: Any, http: Any) -> list[str]:
        url = self.upstream_url(project)
        repository = parse_reference(project.name)[1]
        headers: dict[str, str] = {"Accept": "application/json"}
        response = http.get(url, headers=headers, conditional=True)
        if response.status == 401:
            headers["Authorization"] = f"Bearer {self._token(http, response, url, repository)}"
            response = http.get(url, headers=headers, conditional=True)
        tags: list[str] = []
        for number in range(1, MAX_PAGES + 1):
            http.raise_for_status(response, url, detail=_detail)
            for tag in self._tags(response, url):
                if tag not in tags:
                    tags.append(tag)
            following = next_page(response.headers.get("Link"), response.url)
            if not following or number == MAX_PAGES:
                break
            if _origin(following) != _origin(url):  # the token is the registry's: never sent elsewhere
                headers.pop("Authorization", None)
            url = following
            response = http.get(url, headers=headers)
        return tags

    def _tags(self, response: Any, url: str) -> list[str]:
        try:
            data = response.json()
        except FetchError:
            raise BackendError(f"{url}: unexpected answer from the registry (not JSON)") from None
        tags = data.get("tags") if isinstance(data, dict) else ()
        if not isinstance(data, dict) or not isinstance(tags, (list, type(None))):
            raise BackendError(f"{url}: unexpected answer from the registry (no list of tags)")
        return [tag for tag in tags or () if isinstance(tag, str) and tag]

    def _token(self, http: Any, response: Any, url: str, repository: str) -> str:
        """An anonymous pull token for *repository*, from the realm the 401 answer names."""
        scheme, params = challenge(response.headers.get("WWW-Authenticate", ""))
        realm = params.get("realm", "")
        if scheme != "bearer" or not realm.startswith(("https://", "http://")):
            explained = "it asks for a password: private images are not supported" if scheme == "basic" \
                else "no anonymous token flow offered"
            http.raise_for_status(response, url, detail=lambda _answer: explained)
        query = {"service": params.get("service"), "scope": params.get("scope") or f"repository:{repository}:pull"}
        token_url = realm + ("&" if "?" in realm else "?") + urlencode({k: v for k, v in query.items() if v})
        data = http.get_json(token_url, detail=_registry_errors)
        token = (data.get("token") or data.get("access_token")) if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise BackendError(f"{realm}: unexpected answer from the registry's token service (no token)")
        return token


class OciEcosystem(Ecosystem):
    name = "oci"
    default_backend = "Container registry"
    aliases = ["docker", "container"]


@hookimpl
def anitrack_register_backends(registry):
    registry.add(ContainerRegistryBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(OciEcosystem)
