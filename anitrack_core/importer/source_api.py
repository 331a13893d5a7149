"""Importing what an Anitya instance's public API shows, for instances whose database you cannot reach.

It reads ``/api/distro/names``, the pages of ``/api/v2/projects/`` (each project with its versions)
and of ``/api/v2/packages/``, and, with ``version_dates``, ``/api/v2/versions/`` of every project (for
when its newest version was found).  Politely: at most ``rate`` requests per second, conditional
requests (the validators of the last run are kept), a ``Retry-After`` honoured, and a page the server
fails to produce (Anitya's packages page fails on a package whose project is gone) read again item by
item, so only the failing items are lost, each reported.  Resumable: where it stopped is kept in a
checkpoint, and every write is idempotent.

The API does not show everything: version schemes, prefixes and filters, check state, flags, users
and tokens are not in it, and versions come as Anitya shows them (prefixes stripped, filtered), so
projects are imported with the default rules; the report says so.
"""

from __future__ import annotations

import sys
import time
from datetime import datetime, timezone
from typing import IO, TYPE_CHECKING, Any

import requests

from ..db.database import redact
from .checkpoint import Checkpoint
from ..progress import Progress
from .report import ImportReport, SourceError

if TYPE_CHECKING:
    from ..runtime import Runtime

USER_AGENT = "anitrack-import"
#: attempts of one request before the import gives up (connection errors, 5xx, 429)
ATTEMPTS = 3
#: the longest Retry-After honoured, in seconds
MAX_WAIT = 120.0


class PageFailed(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


class AnityaApi:
    """A polite client of one Anitya instance's API."""

    def __init__(self, base_url: str, *, rate: float = 2.0, validators: dict[str, dict[str, str]] | None = None,
                 timeout: float = 30.0, session: requests.Session | None = None) -> None:
        self.base = base_url.rstrip("/")
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.validators = validators if validators is not None else {}
        self.timeout = timeout
        self.session = session or requests.Session()
        self.session.headers["User-Agent"] = USER_AGENT
        self.session.headers["Accept"] = "application/json"
        self._last = 0.0
        self.requests = 0

    def close(self) -> None:
        self.session.close()

    def _pace(self) -> None:
        wait = self._last + self.interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last = time.monotonic()

    def get(self, path: str, params: dict[str, Any] | None = None, *, conditional: bool = False,
            attempts: int = ATTEMPTS) -> Any:
        """The JSON at *path*; None when *conditional* and unchanged since the last run (HTTP 304).

        :raises PageFailed: the server kept failing (5xx) or refused (4xx).
        :raises SourceError: the server cannot be reached.
        """
        request = requests.Request("GET", self.base + path, params=params).prepare()
        key = request.url or path
        headers = {}
        if conditional and key in self.validators:
            known = self.validators[key]
            if known.get("etag"):
                headers["If-None-Match"] = known["etag"]
            if known.get("last_modified"):
                headers["If-Modified-Since"] = known["last_modified"]
        for attempt in range(attempts):
            self._pace()
            self.requests += 1
            try:
                response = self.session.get(key, headers=headers, timeout=self.timeout)
            except requests.RequestException as exc:
                if attempt + 1 == attempts:
                    raise SourceError(f"cannot reach {self.base}: {exc}") from None
                time.sleep(2 ** attempt)
                continue
            if response.status_code == 304:
                return None
            if response.status_code == 429 or response.status_code >= 500:
                if attempt + 1 == attempts:
                    raise PageFailed(response.status_code)
                time.sleep(min(_retry_after(response) or 2 ** attempt, MAX_WAIT))
                continue
            if response.status_code != 200:
                raise PageFailed(response.status_code)
            try:
                body = response.json()
            except ValueError:
                raise SourceError(f"{self.base} does not answer like Anitya's API ({key} is not JSON)") from None
            if conditional and (response.headers.get("ETag") or response.headers.get("Last-Modified")):
                self.validators[key] = {"etag": response.headers.get("ETag", ""),
                                        "last_modified": response.headers.get("Last-Modified", "")}
            return body
        raise AssertionError("unreachable")


def _retry_after(response: requests.Response) -> float | None:
    try:
        return float(response.headers.get("Retry-After", ""))
    except ValueError:
        return None


def _when(epoch: Any) -> datetime | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(float(epoch), timezone.utc).replace(tzinfo=None)


def project_record(item: dict[str, Any]) -> dict[str, Any]:
    """A project of ``/api/v2/projects/`` as the writer takes it (the fields the API does not show empty)."""
    return {
        "id": item["id"], "name": item["name"], "homepage": item["homepage"], "backend": item["backend"],
        "ecosystem_name": item.get("ecosystem") or item["homepage"], "version_url": item.get("version_url"),
        "regex": item.get("regex"), "version_prefix": None, "version_pattern": None, "version_scheme": None,
        "pre_release_filter": None, "version_filter": None, "insecure": False, "releases_only": False,
        "error_counter": 0, "latest_version": item.get("version"), "latest_version_cursor": None, "logs": None,
        "check_successful": None, "archived": False, "last_check": None, "next_check": None,
        "created_on": _when(item.get("created_on")), "updated_on": _when(item.get("updated_on")),
        "versions": [(version, None, None) for version in item.get("versions") or []], "packages": [], "flags": [],
    }


def import_from_api(runtime: Runtime, base_url: str, *, rate: float = 2.0, items_per_page: int = 250,
                    version_dates: bool = False, publish_events: bool = False, restart: bool = False,
                    progress: bool = True, stream: IO[str] | None = None,
                    session: requests.Session | None = None) -> ImportReport:
    from ..db.listings import refresh_missing
    from .writer import Writer

    stream = stream if stream is not None else sys.stderr
    checkpoint = Checkpoint(runtime.settings.data_dir, "anitya-api", base_url)
    state = {} if restart else checkpoint.load()
    validators = state.get("validators", {})
    position = {} if state.get("done") else state
    api = AnityaApi(base_url, rate=rate, validators=validators, session=session)
    report = ImportReport(redact(base_url))
    report.notes.append("from the API: version schemes, prefixes, filters, check state, flags, users and tokens "
                        "are not shown there and were not imported; versions are as Anitya shows them")
    if position:
        report.resumed_after = f"{position.get('phase')} page {position.get('page')}"
    writer = Writer(runtime.plugins, report, publish_events=publish_events)
    per_page = min(items_per_page, 250)

    def save(phase: str, page: int) -> None:
        checkpoint.save(phase=phase, page=page, validators=api.validators)

    phases = ["projects", "packages", *(["versions"] if version_dates else [])]
    start_phase = position.get("phase", "projects")
    start_page = int(position.get("page", 0))
    try:
        try:
            first = api.get("/api/v2/projects/", {"page": 1, "items_per_page": 1})
        except PageFailed as exc:
            raise SourceError(f"{redact(base_url)} does not answer like Anitya's API "
                              f"(/api/v2/projects/: {exc})") from None
        if not isinstance(first, dict) or "total_items" not in first:
            raise SourceError(f"{redact(base_url)} does not answer like Anitya's API (/api/v2/projects/)")
        assert runtime.db is not None
        with runtime.db.connection_context():
            try:
                writer.distros(api.get("/api/distro/names").get("distro", []))
            except PageFailed as exc:
                report.problem("distros", "/api/distro/names", f"Anitya's API failed ({exc}): distributions "
                               "are taken from the packages instead")
            for phase in phases[phases.index(start_phase):]:
                after = start_page if phase == start_phase else 0
                if phase == "versions":
                    _version_dates(api, writer, report, after, progress, stream, save)
                    continue
                path = "/api/v2/projects/" if phase == "projects" else "/api/v2/packages/"
                total = int(api.get(path, {"page": 1, "items_per_page": 1})["total_items"])
                pages = -(-total // per_page)
                with Progress(phase, total, initial=min(after * per_page, total), enabled=progress,
                              stream=stream) as bar:
                    for page in range(after + 1, pages + 1):
                        items = _page(api, path, page, per_page, report, phase)
                        if items is None:  # unchanged since the last run
                            report.unchanged[phase] += per_page if page < pages else total - per_page * (pages - 1)
                        elif phase == "projects":
                            writer.projects([project_record(item) for item in items])
                        else:
                            writer.mapped_packages(items)
                        save(phase, page)
                        bar.advance(min(per_page, total - (page - 1) * per_page))
            writer.finish()
            refresh_missing(writer.schemes)
    except PageFailed as exc:
        raise SourceError(f"{redact(base_url)} failed: {exc}; run the import again to go on where it stopped") from None
    finally:
        api.close()
    checkpoint.save(done=True, validators=api.validators)
    report.notes.append(f"{api.requests} request(s) to {redact(base_url)}")
    return report


def _page(api: AnityaApi, path: str, page: int, per_page: int, report: ImportReport,
          kind: str) -> list[dict[str, Any]] | None:
    """The items of one page; a page the server fails to produce is read again one item at a time."""
    try:
        body = api.get(path, {"page": page, "items_per_page": per_page}, conditional=True)
    except PageFailed as exc:
        items = []
        for single in range((page - 1) * per_page + 1, page * per_page + 1):
            try:
                got = api.get(path, {"page": single, "items_per_page": 1}, attempts=1)["items"]
            except PageFailed as item_exc:
                report.problem(kind, f"item {single} of {path}", f"Anitya's API failed to show it ({item_exc})")
                continue
            if not got:
                break
            items.extend(got)
        if not items:
            report.notes.append(f"page {page} of {path} failed ({exc})")
        return items
    return None if body is None else list(body.get("items", []))


def _version_dates(api: AnityaApi, writer: Any, report: ImportReport, after: int, progress: bool,
                   stream: IO[str], save: Any) -> None:
    """When each project's newest version was found, from ``/api/v2/versions/`` (one request per project)."""
    from ..db.listings import refresh_listings
    from ..db.models import Project, ProjectVersion

    ids = [pid for (pid,) in Project.select(Project.id).where(Project.id > after).order_by(Project.id).tuples()]
    with Progress("version dates", len(ids), enabled=progress, stream=stream) as bar:
        for pid in ids:
            try:
                body = api.get("/api/v2/versions/", {"project_id": pid})
            except PageFailed as exc:
                report.problem("versions", f"versions of project {pid}", f"Anitya's API failed to show them ({exc})")
                body = {}
            found_on = body.get("latest_version_created_on")
            newest = (body.get("versions") or [None])[0]
            if found_on and newest:
                when = datetime.fromisoformat(found_on.replace("Z", "+00:00"))
                if when.tzinfo is not None:
                    when = when.astimezone(timezone.utc).replace(tzinfo=None)
                with ProjectVersion._meta.database.atomic():
                    changed = (ProjectVersion.update(created_on=when)
                               .where((ProjectVersion.project == pid) & (ProjectVersion.version == newest)
                                      & ((ProjectVersion.created_on != when) | ProjectVersion.created_on.is_null()))
                               .execute())
                    if changed:
                        refresh_listings(writer.schemes, [pid])
            save("versions", pid)
            bar.advance()
