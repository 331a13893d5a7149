"""What the read pages share: reading their filters, sorting, and fetching a page of projects.

A list page costs one COUNT and one query for its rows, whatever its size:
rows come back as plain dicts (see :func:`anitrack_web.queries.rows`) and
carry every column the tables show, so no template reads a relation.

Filters are checked, not guessed: a value that is not one of the choices is
a 400 page with the form, the offending field named next to it (the existing
service silently fell back to another filter; not here).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

import peewee
from bottle import request
from peewee import fn

from anitrack_core.db.history import Change
from anitrack_core.db.models import Distro, Package, Project, database_proxy

from .. import queries
from .paging import Pager, page_number

PER_PAGE = 50
#: the longest text accepted in a filter or search field
MAX_TEXT = 200

#: the columns every project table shows
LIST_COLUMNS = (
    Project.id, Project.name, Project.homepage, Project.backend, Project.latest_version, Project.updated_on,
    Project.archived, Project.check_successful, Project.error_counter,
)
#: the same and what the update and log pages add: creation, the last check and its log
LOG_COLUMNS = (*LIST_COLUMNS, Project.created_on, Project.last_check, Project.logs)

#: ``?sort=`` keys: what a person clicks, and the expression sorted on
SORT_KEYS: dict[str, Callable[[], Any]] = {
    "name": lambda: queries.ordered(Project.name_key),
    "homepage": lambda: fn.LOWER(Project.homepage),
    "backend": lambda: fn.LOWER(Project.backend),
    "latest": lambda: Project.latest_version,
    "updated": lambda: Project.updated_on,
}
SORT_LABELS = {"name": "Name", "homepage": "Homepage", "backend": "Backend", "latest": "Latest version",
               "updated": "Updated"}
SORT_CHOICES = tuple(key for name in SORT_KEYS for key in (name, "-" + name))
#: ``?status=`` of the projects page: what each means
STATUS_FILTERS: dict[str, Callable[[], Any]] = {
    "updated": lambda: Project.check_successful == True,  # noqa: E712 (peewee expression)
    "failed": lambda: (Project.check_successful == False) & (Project.error_counter > 0),  # noqa: E712
    "never": lambda: Project.latest_version.is_null(),
    "archived": lambda: Project.archived == True,  # noqa: E712
}
STATUS_LABELS = {"updated": "Checked OK", "failed": "Checks failing", "never": "No version yet",
                 "archived": "Archived"}


def normal_sort(value: str) -> str:
    """``name_desc`` (the existing service's spelling) as ``-name``; other values unchanged."""
    for suffix, sign in (("_asc", ""), ("_desc", "-")):
        if value.endswith(suffix) and value[: -len(suffix)] in SORT_KEYS:
            return sign + value[: -len(suffix)]
    return value


@dataclass
class Filters:
    """The query parameters of a list page, read and checked."""

    values: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def text(self, name: str, *, label: str | None = None) -> str:
        """A free-text parameter, stripped; too long or holding control characters is an error."""
        value = (request.query.getunicode(name) or "").strip()
        if len(value) > MAX_TEXT:
            self.errors[name] = f"{label or name.capitalize()} is longer than {MAX_TEXT} characters."
        elif re.search(r"[\x00-\x1f\x7f]", value):
            self.errors[name] = f"{label or name.capitalize()} holds control characters."
        self.values[name] = value
        return value

    def choice(self, name: str, choices: Iterable[str], *, describe: str | None = None,
               normalise: Callable[[str], str] = str) -> str:
        """A parameter that must be one of *choices* (or empty); matched ignoring case."""
        raw = (request.query.getunicode(name) or "").strip()
        options = list(choices)
        by_key = {option.casefold(): option for option in options}
        value = by_key.get(normalise(raw).casefold(), "") if raw else ""
        if raw and not value:
            known = describe or ", ".join(options)
            self.errors[name] = f"{raw!r} is not a valid {name}; choose one of: {known}."
        self.values[name] = value or raw
        return value

    @property
    def status(self) -> int:
        return 400 if self.errors else 200


class SortLinks:
    """The sortable headers of a table: their links keep every filter, ``aria-sort`` marks the sorted one."""

    def __init__(self, current: str) -> None:
        self.current = current

    def url(self, key: str) -> str:
        target = "-" + key if self.current == key else key
        params = [(name, request.query.getunicode(name) or "") for name in request.query.keys()
                  if name not in ("sort", "page")]
        params.append(("sort", target))
        return f"{request.path}?{urlencode(params)}"

    def aria(self, key: str) -> str | None:
        if self.current == key:
            return "ascending"
        if self.current == "-" + key:
            return "descending"
        return None

    def headers(self) -> list[dict[str, Any]]:
        """The headers of a projects table: label, link and ``aria-sort`` value of each sortable column."""
        return [{"label": label, "url": self.url(key), "aria": self.aria(key)} for key, label in SORT_LABELS.items()]


def sorted_by(query: peewee.SelectQuery, sort: str) -> peewee.SelectQuery:
    """*query* ordered by the ``?sort=`` value *sort* (``-`` = descending), then by id."""
    key = sort.lstrip("-") or "name"
    expression = SORT_KEYS[key]()
    order = expression.desc() if sort.startswith("-") else expression.asc()
    return query.order_by(order, Project.id)


TIME_COLUMNS = ("created_on", "updated_on", "last_check", "next_check")


def with_times(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """*found* rows with their timestamp columns as datetimes (SQLite gives text)."""
    for row in found:
        for name in TIME_COLUMNS:
            if name in row:
                row[name] = queries.timestamp(row[name])
    return found


def page_of_projects(query: peewee.SelectQuery, page: int | None = None,
                     per_page: int = PER_PAGE) -> tuple[Pager, list[dict[str, Any]]]:
    """The pager and the rows of the current page of *query* (two queries)."""
    page = page or page_number()
    # counted on the ids alone, unordered: cheaper to build and to run than the page's own query
    total = query.select(Project.id).order_by().count()
    found = queries.rows(query.paginate(page, per_page)) if total > (page - 1) * per_page else []
    return Pager(page, per_page, total), with_times(found)


def distro_search_path(distro: Distro) -> str:
    """Where the search within *distro* lives."""
    return f"/distro/{quote(distro.name, safe='')}/search/"


def like_anywhere(text: str) -> str:
    """The LIKE pattern of *text* found anywhere (``*`` still a wildcard)."""
    return queries.like_pattern(f"*{text}*")


def matching(q: str) -> Any:
    """Projects whose name, a mapped package name, homepage or backend contains *q* (ignoring case)."""
    like = like_anywhere(q)
    by_package = Package.select(Package.project).where(queries.matches(Package.package_key, like))
    return (queries.matches(Project.name_key, like) | Project.id.in_(by_package)
            | queries.matches(fn.LOWER(Project.homepage), like) | queries.matches(fn.LOWER(Project.backend), like))


def search(pattern: str, *, exact: bool, distro: Distro | None = None) -> peewee.SelectQuery:
    """The existing service's search: name or package name; ``*`` is a wildcard; ``*pattern*`` unless *exact*.

    An empty pattern (or ``*``) matches every project (of *distro*).
    """
    query = Project.select(*LIST_COLUMNS)
    in_distro = Package.select(Package.project).where(Package.distro == distro.id) if distro else None
    stripped = re.sub(r"\*{2,}", "*", pattern)
    if stripped.strip("*"):
        like = queries.like_pattern(stripped if exact else f"*{stripped}*", prefix_when_plain=False)
        packages = Package.select(Package.project).where(queries.matches(Package.package_key, like))
        by_name = queries.matches(Project.name_key, like)
        if in_distro is not None:
            packages = packages.where(Package.distro == distro.id)
            by_name &= Project.id.in_(in_distro)
        query = query.where(by_name | Project.id.in_(packages))
    elif in_distro is not None:
        query = query.where(Project.id.in_(in_distro))
    return query


class Prepared:
    """A query of one shape, its SQL built once per database and run with a new value each time.

    On a small page peewee's building of the SQL costs more than SQLite's running
    of it; the project page runs the same few queries for every project.
    *build* makes the query for a value; every parameter equal to that value is
    replaced by the value of the call (the others are constants of the shape).
    """

    _MARK = -7_340_032_517  # an id no row has: tells the value's parameters from the constants

    def __init__(self, build: Callable[[Any], peewee.Query]) -> None:
        self._build = build
        self._compiled: dict[int, tuple[str, list[Any], list[int]]] = {}

    def _execute(self, value: int) -> Any:
        db = database_proxy.obj
        compiled = self._compiled.get(id(db))
        if compiled is None:
            sql, params = self._build(self._MARK).sql()
            compiled = self._compiled[id(db)] = (sql, list(params),
                                                 [i for i, p in enumerate(params) if p == self._MARK])
        sql, params, slots = compiled
        values = list(params)
        for slot in slots:
            values[slot] = value
        return database_proxy.execute_sql(sql, values)

    def tuples(self, value: int) -> list[tuple[Any, ...]]:
        return list(self._execute(value).fetchall())

    def dicts(self, value: int) -> list[dict[str, Any]]:
        cursor = self._execute(value)
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


# ---------------------------------------------------------------- a project's history in words

_FIELD_NAMES = {"version_url": "version URL", "regex": "regular expression", "version_prefix": "version prefix",
                "pre_release_filter": "pre-release filter", "version_filter": "version filter",
                "version_scheme": "version scheme", "version_pattern": "version pattern",
                "ecosystem_name": "ecosystem", "releases_only": "releases only", "insecure": "insecure"}


def _value(value: Any) -> str:
    if value is None or value == "":
        return "nothing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)




def describe(change: Change) -> str:
    """One history entry as a sentence a person reads."""
    details = change.details
    topic = change.topic
    if topic == "project.add":
        return "Project added."
    if topic == "project.remove":
        return "Project removed."
    if topic == "project.edit":
        changes = details.get("changes") or {}
        parts = []
        for name in details.get("fields") or list(changes):
            label = _FIELD_NAMES.get(name, name.replace("_", " "))
            if name == "archived":
                parts.append("archived" if (changes.get(name) or {}).get("new") else "unarchived")
                continue
            change_of = changes.get(name) or {}
            parts.append(f"{label} changed from {_value(change_of.get('old'))} to {_value(change_of.get('new'))}")
        return ("Edited: " + "; ".join(parts) + ".") if parts else "Edited."
    if topic == "project.flag":
        return f"Flagged: {details.get('reason', '')}"
    if topic == "project.flag.set":
        return f"Flag {details.get('flag', '?')} set to {details.get('state', '?')}."
    if topic == "project.map.new":
        return f"Mapped to the package {_value(details.get('new'))} of {_value(details.get('distro'))}."
    if topic == "project.map.update":
        return (f"Package of {_value(details.get('distro'))} changed from {_value(details.get('prev'))} "
                f"to {_value(details.get('new'))}.")
    if topic == "project.map.remove":
        return f"Mapping in {_value(details.get('distro'))} removed."
    if topic == "project.version.update.v2":
        found = details.get("upstream_versions") or []
        text = f"New version{'s' if len(found) != 1 else ''} found: {', '.join(map(str, found)) or 'none'}"
        if details.get("old_version"):
            text += f" (latest was {details['old_version']})"
        return text + "."
    if topic == "project.version.remove.v2":
        gone = details.get("versions") or []
        return f"Version{'s' if len(gone) != 1 else ''} removed: {', '.join(map(str, gone))}."
    return f"{topic}: {json.dumps(details, sort_keys=True)}"
