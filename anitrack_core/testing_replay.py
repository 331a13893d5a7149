"""Replaying recorded upstream answers (vcrpy cassettes) through the check engine's HTTP client.

A cassette is a YAML file in vcrpy's format (``version: 1``): a list of
interactions, each a request (method, URI) and the response the upstream gave
(status, headers, body).  :class:`ReplayAdapter` is a requests transport
adapter that answers from such a file instead of the network, and
:class:`ReplayClient` is an :class:`~anitrack_core.check.http.HttpClient`
sending through one, so a backend runs exactly as in production (User-Agent,
conditional headers, deadline, size cap and redirects are the client's) while
nothing is resolved or connected::

    client = ReplayClient("cassettes/test_gitlab_get_versions")
    versions = GitLabBackend().get_versions(project, client.for_check())
    assert client.misses == []

Playback rules, the ones Anitya's recordings were made for (and the ones
vcrpy's ``record_mode="none"`` applies):

* a request matches an interaction on method, scheme, host, port, path and
  query (its parameters compared as a sorted list); headers and bodies are not
  compared (a GraphQL query's text, a token, do not matter);
* each interaction answers once, in the order of the file; asking the same URL
  twice needs it recorded twice;
* a request that matches no unplayed interaction fails *inside the transport*,
  as a connection error would (``requests.ConnectionError``), so the backend
  sees an ordinary fetch failure and the check ends with a normal error; it is
  also listed in :attr:`ReplayAdapter.misses`;
* bodies stored compressed (``Content-Encoding: gzip`` or ``deflate``) are
  decompressed in memory when the file is loaded, as the client would have
  decoded the stream; the file itself is never modified.

The cassettes are parsed here with PyYAML (vcrpy is not needed).  Older
recordings tag strings ``!!python/unicode``; that tag is read as a plain
string, and nothing else beyond YAML's safe types is constructed.

The shared recordings (``shared/upstream-recordings`` beside the repository,
or the directory named by ``ANITRACK_RECORDINGS``) are located by
:func:`recordings_dir`; they are read in place and never copied.
:func:`run_recorded_case` checks one case of their ``manifest.json`` with a
backend, through such a client, and compares with what the case expects::

    run = run_recorded_case("cgit--get-versions-project-homepage-only--cgit", CgitBackend())
    assert run.versions[0] == "1.2.3"
"""

from __future__ import annotations

import collections
import io
import json
import os
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import requests
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from urllib3 import HTTPHeaderDict, HTTPResponse

from .backend import Backend
from .check.backend_versions import FetchOutcome, ask_backend
from .check.http import FetchPolicy, HttpClient
from .check.spec import ProjectSpec
from .listing import VersionListing, list_versions
from .versions import RpmScheme, VersionRules

__all__ = [
    "RECORDINGS_ENV", "Cassette", "Interaction", "RecordedRun", "ReplayAdapter", "ReplayClient",
    "find_cassette", "recordings_dir", "run_recorded_case",
]

#: names the directory of the shared recordings (holding manifest.json and cassettes/)
RECORDINGS_ENV = "ANITRACK_RECORDINGS"
_DEFAULT_PORTS = {"http": 80, "https": 443}


# ---- locating the recordings ----

def recordings_dir() -> Path | None:
    """The shared recordings: ``$ANITRACK_RECORDINGS``, else ``shared/upstream-recordings``
    beside the source checkout of anitrack (or beside the current directory); None when absent.
    """
    named = os.environ.get(RECORDINGS_ENV)
    if named:
        path = Path(named).expanduser()
        return path if path.is_dir() else None
    checkout = Path(__file__).resolve().parents[1]
    for base in (checkout, Path.cwd()):
        candidate = base.parent / "shared" / "upstream-recordings"
        if candidate.is_dir():
            return candidate
    return None


def find_cassette(name: str | os.PathLike[str]) -> Path | None:
    """*name* as a path to an existing file, else a file of that name under ``<recordings>/cassettes``."""
    path = Path(name).expanduser()
    if path.is_file():
        return path
    base = recordings_dir()
    if base is not None and (base / "cassettes" / str(name)).is_file():
        return base / "cassettes" / str(name)
    return None


# ---- reading a cassette ----

def _yaml_loader() -> Any:
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML comes with the test extras
        raise RuntimeError("replaying cassettes needs PyYAML: pip install pyyaml") from None

    class Loader(yaml.SafeLoader):
        """YAML's safe types, plus the string tags old vcrpy versions wrote."""

    def as_text(loader: Any, node: Any) -> str:
        return loader.construct_scalar(node)

    Loader.add_constructor("tag:yaml.org,2002:python/unicode", as_text)
    Loader.add_constructor("tag:yaml.org,2002:python/str", as_text)
    return yaml, Loader


def _header_pairs(headers: Any) -> list[tuple[str, str]]:
    """vcrpy stores ``{name: [value, ...]}`` (older files sometimes a bare string)."""
    pairs: list[tuple[str, str]] = []
    for name, values in (headers or {}).items():
        for value in values if isinstance(values, list) else [values]:
            pairs.append((str(name), "" if value is None else str(value)))
    return pairs


def _body_bytes(body: Any) -> bytes:
    if isinstance(body, dict):
        body = body.get("string")
    if body is None:
        return b""
    return body if isinstance(body, bytes) else str(body).encode("utf-8")


def _with_length(headers: list[tuple[str, str]], body: bytes) -> list[tuple[str, str]]:
    """*headers* with a Content-Length that is the length of *body* (when they declared one)."""
    if not any(k.lower() == "content-length" for k, _ in headers):
        return headers
    return [(k, v) for k, v in headers if k.lower() != "content-length"] + [("Content-Length", str(len(body)))]


def _decompressed(headers: list[tuple[str, str]], body: bytes) -> tuple[list[tuple[str, str]], bytes]:
    """Undo ``Content-Encoding: gzip``/``deflate`` in memory; the headers then describe the plain body."""
    encodings = [v.strip().lower() for k, v in headers if k.lower() == "content-encoding"]
    if not encodings or not body:
        return _with_length(headers, body), body
    data = body
    for encoding in reversed(",".join(encodings).split(",")):
        encoding = encoding.strip()
        try:
            if encoding in ("gzip", "x-gzip"):
                data = zlib.decompress(data, 16 + zlib.MAX_WBITS)
            elif encoding == "deflate":
                try:
                    data = zlib.decompress(data)
                except zlib.error:
                    data = zlib.decompress(data, -zlib.MAX_WBITS)
            elif encoding in ("identity", ""):
                continue
            else:
                return _with_length(headers, body), body  # an encoding we cannot undo: serve it as recorded
        except zlib.error:
            return _with_length(headers, body), body
    kept = [(k, v) for k, v in headers if k.lower() not in ("content-encoding", "content-length")]
    return kept + [("Content-Length", str(len(data)))], data


def _query(parts: Any) -> list[tuple[str, str]]:
    return sorted(parse_qsl(parts.query))


def request_key(method: str, url: str) -> tuple[str, str, str, int | None, str, list[tuple[str, str]]]:
    """What a request is matched on: method, scheme, host, port, path, sorted query."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        port = None
    return (method.upper(), scheme, (parts.hostname or "").lower(), port, parts.path or "/", _query(parts))


@dataclass
class Interaction:
    """One recorded request and the answer to it (body already decompressed)."""

    method: str
    uri: str
    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes
    played: bool = False

    @property
    def key(self) -> tuple[Any, ...]:
        return request_key(self.method, self.uri)


@dataclass
class Cassette:
    """The interactions of one cassette file."""

    path: Path
    interactions: list[Interaction] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Cassette:
        """Read a vcrpy YAML cassette.

        :raises ValueError: the file is not a cassette.
        """
        yaml, loader = _yaml_loader()
        file = Path(path)
        with file.open("rb") as fh:
            data = yaml.load(fh, Loader=loader)  # noqa: S506 - a SafeLoader subclass
        if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
            raise ValueError(f"{file}: not a vcrpy cassette (no 'interactions' list)")
        interactions = []
        for number, item in enumerate(data["interactions"], 1):
            try:
                request, response = item["request"], item["response"]
                status = response.get("status") or {}
                headers, body = _decompressed(_header_pairs(response.get("headers")),
                                              _body_bytes(response.get("body")))
                interactions.append(Interaction(
                    method=str(request["method"]).upper(), uri=str(request["uri"]),
                    status=int(status.get("code", 200)), reason=str(status.get("message") or ""),
                    headers=headers, body=body))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ValueError(f"{file}: interaction {number} is malformed ({exc!r})") from None
        return cls(file, interactions)

    @property
    def name(self) -> str:
        return self.path.name


# ---- playing it ----

class ReplayAdapter(BaseAdapter):
    """A requests adapter answering from a :class:`Cassette`; it never opens a socket.

    :attr:`requests` lists every ``(method, url)`` sent, :attr:`misses` those
    no unplayed interaction matched (they failed like a refused connection),
    :attr:`sent` the requests themselves (headers, body).
    """

    def __init__(self, cassette: Cassette | str | os.PathLike[str]) -> None:
        super().__init__()
        self.cassette = cassette if isinstance(cassette, Cassette) else Cassette.load(cassette)
        self.requests: list[tuple[str, str]] = []
        self.misses: list[tuple[str, str]] = []
        self.sent: list[requests.PreparedRequest] = []
        self._lock = threading.Lock()

    def unplayed(self) -> list[Interaction]:
        """The recorded interactions nothing asked for (yet)."""
        with self._lock:
            return [i for i in self.cassette.interactions if not i.played]

    def _take(self, method: str, url: str) -> Interaction | None:
        key = request_key(method, url)
        with self._lock:
            self.requests.append((method, url))
            for interaction in self.cassette.interactions:
                if not interaction.played and interaction.key == key:
                    interaction.played = True
                    return interaction
            self.misses.append((method, url))
            return None

    def send(self, request: requests.PreparedRequest, stream: bool = False, timeout: Any = None,
             verify: Any = True, cert: Any = None, proxies: Any = None) -> requests.Response:
        method = (request.method or "GET").upper()
        url = request.url or ""
        with self._lock:
            self.sent.append(request.copy())
        interaction = self._take(method, url)
        if interaction is None:
            raise requests.exceptions.ConnectionError(
                f"{method} {url} is not recorded in the cassette {self.cassette.name} "
                "(or its recording was played already); replay never uses the network",
                request=request)
        headers = HTTPHeaderDict()
        for name, value in interaction.headers:
            headers.add(name, value)
        raw = HTTPResponse(
            body=io.BytesIO(interaction.body), headers=headers, status=interaction.status,
            reason=interaction.reason, preload_content=False, decode_content=False,
            request_method=method, request_url=url)
        response = requests.Response()
        response.status_code = interaction.status
        response.headers = CaseInsensitiveDict(raw.headers)
        response.encoding = get_encoding_from_headers(response.headers)
        response.raw = raw
        response.reason = interaction.reason
        response.url = url
        response.request = request
        response.connection = self
        if not stream:
            response.content  # noqa: B018 - read now, as requests' own adapter does without stream
        return response

    def close(self) -> None:
        pass


class ReplayClient(HttpClient):
    """An :class:`~anitrack_core.check.http.HttpClient` whose every request is answered by a cassette.

    :param cassette: a :class:`Cassette`, or the path of a cassette file.
    :param policy: default: a test policy (User-Agent ``anitrack-replay``,
        default timeouts and limits).
    """

    def __init__(self, cassette: Cassette | str | os.PathLike[str], policy: FetchPolicy | None = None) -> None:
        self.adapter = ReplayAdapter(cassette)
        super().__init__(policy or FetchPolicy(user_agent="anitrack-replay (tests)"), adapter=self.adapter)

    @property
    def cassette(self) -> Cassette:
        return self.adapter.cassette

    @property
    def requests(self) -> list[tuple[str, str]]:
        """Every ``(method, url)`` sent so far (redirect hops included)."""
        return self.adapter.requests

    @property
    def misses(self) -> list[tuple[str, str]]:
        """The requests the cassette had no answer for."""
        return self.adapter.misses

    @property
    def sent(self) -> list[requests.PreparedRequest]:
        """The requests as sent (``.headers``, ``.body``)."""
        return self.adapter.sent

    def unplayed(self) -> list[Interaction]:
        return self.adapter.unplayed()


# ---- one case of the shared recordings, checked as ``anitrack check --dry-run`` does ----

#: why a test is skipped (failed under CI) when the shared recordings are absent
NO_RECORDINGS = ("no upstream recordings (shared/upstream-recordings beside the repository, "
                 "or $ANITRACK_RECORDINGS)")


@dataclass
class RecordedRun:
    """What :func:`run_recorded_case` did: the case, the check's outcome and the listing made of it."""

    #: the case of ``manifest.json``, as written there
    case: dict[str, Any]
    #: the project the case describes, as the backend saw it
    spec: ProjectSpec
    #: what the engine kept of the backend's answer (``outcome.error`` for a failed check)
    outcome: FetchOutcome
    #: the versions listed newest first (None when the check failed)
    listing: VersionListing | None
    #: every ``(method, url)`` sent to the cassette, redirect hops included
    requests: list[tuple[str, str]]

    @property
    def error(self) -> str | None:
        return self.outcome.error

    @property
    def versions(self) -> list[str]:
        return self.listing.versions if self.listing is not None else []


def run_recorded_case(case_id: str, backend: Backend | None = None, *, plugins: Any = None) -> RecordedRun:
    """Check the project of the manifest case *case_id* against its cassette and assert its expectation.

    The backend is *backend* (configured, if it needs settings such as a
    token), or else the one the case names, looked up in *plugins* (default:
    the installed plugins) and made with no settings.  It fetches through a
    :class:`ReplayClient` of the case's cassette (no network, no server), then
    the engine cleans and lists the versions as a dry run does
    (:func:`~anitrack_core.check.backend_versions.ask_backend`, then
    :func:`~anitrack_core.listing.list_versions` with the case's rules, under
    RPM unless the case names a version scheme).  Asserted: no request went
    outside the case's recorded requests, and the check failed when the case
    expects an error, else listed the expected versions (in order, or as a
    multiset for ``order: unordered``) with ``expect_latest`` first.

    Without the recordings the test is skipped (failed under CI).
    """
    from .testing import skip_or_fail

    recordings = recordings_dir()
    if recordings is None or not (recordings / "manifest.json").is_file():
        skip_or_fail(NO_RECORDINGS)
        raise AssertionError(NO_RECORDINGS)  # pragma: no cover - skip_or_fail raises
    manifest = json.loads((recordings / "manifest.json").read_text(encoding="utf-8"))
    case = next((c for c in manifest["cases"] if c["id"] == case_id), None)
    assert case is not None, f"no case {case_id!r} in {recordings / 'manifest.json'}"
    spec = ProjectSpec(id=None, backend=case["backend"], **case["project"])
    if plugins is None and (backend is None or spec.version_scheme):
        from .plugins import load_plugins

        plugins = load_plugins(autoload=backend is None)
    if backend is None:
        backend = plugins.backends.get(case["backend"])()
    assert backend.name.casefold() == case["backend"].casefold(), \
        f"case {case_id} is for backend {case['backend']!r}, not {backend.name!r}"
    rules = VersionRules(prefix=spec.version_prefix, pre_release_filter=spec.pre_release_filter,
                         version_filter=spec.version_filter, pattern=spec.version_pattern)
    scheme = plugins.schemes.get(spec.version_scheme)(rules) if spec.version_scheme else RpmScheme(rules)

    with ReplayClient(recordings / manifest.get("cassette_dir", "cassettes") / case["cassette"]) as client:
        outcome = ask_backend(spec, backend, client, scheme)
        sent = list(client.requests)
        misses = list(client.misses)
    assert not misses, f"{case_id}: requests outside the cassette: {misses} ({outcome.error})"
    listed = [request_key(r["method"], r["uri"]) for r in case["requests"]]
    unlisted = []
    for method, url in sent:  # each listed request may be sent once
        key = request_key(method, url)
        if key in listed:
            listed.remove(key)
        else:
            unlisted.append((method, url))
    assert not unlisted, f"{case_id}: requests the case does not list: {unlisted}"

    run = RecordedRun(case, spec, outcome, None, sent)
    if case.get("expect_error") or case.get("expect") == "error":
        assert outcome.error, f"{case_id}: expected an error, got {[found.version for found in outcome.versions]}"
        return run
    assert outcome.error is None, f"{case_id}: {outcome.error}"
    run.listing = list_versions(scheme, [found.version for found in outcome.versions])
    expected = case["expect_versions"]
    got = run.versions
    if case.get("order") == "unordered":
        assert collections.Counter(got) == collections.Counter(expected), \
            f"{case_id}: missing {list((collections.Counter(expected) - collections.Counter(got)).elements())}, " \
            f"unexpected {list((collections.Counter(got) - collections.Counter(expected)).elements())}"
    else:
        assert got == expected, f"{case_id}: versions {got}, expected {expected}"
    if "expect_latest" in case:
        assert got[:1] == [case["expect_latest"]], f"{case_id}: latest {got[:1]}, expected {case['expect_latest']!r}"
    return run
