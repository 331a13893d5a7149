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
    "homepage": lambda: queries.ordered(fn.LOWER(Project.homepage)),
    "backend": lambda: queries.ordered(fn.LOWER(Project.backend)),
    "latest": lambda: queries.ordered(Project.latest_version),
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
    """*query* ordered by the ``?sort=`` value *sort* (``-`` = descending), then by id.

    Empty values (a project without a version) come last either way, on every database.
    """
    key = sort.lstrip("-") or "name"
    expression = SORT_KEYS[key]()
    order = expression.desc(nulls="LAST") if sort.startswith("-") else expression.asc(nulls="LAST")
    return query.order_by(order, Project.id)


TIME_COLUMNS = ("created_on", "updated_on", "last_check", "next_check")


def with_times(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """*found* rows with their timestamp columns as datetimes (SQLite gives text), and ``updated_day``,
    the day of ``updated_on`` as ``YYYY-MM-DD`` (the projects tables show it; formatting it here costs
    far less than a template filter per row)."""
    for row in found:
        if "updated_on" in row:
            updated = row["updated_on"]
            row["updated_day"] = updated[:10] if isinstance(updated, str) else updated.date().isoformat()
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


def matching(like: str) -> Any:
    """Projects whose name, a mapped package name, homepage or backend matches the LIKE pattern *like*."""
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
    """A query of one shape, its SQL built once per kind of database and run with new values each time.

    On a small page peewee's building of the SQL costs more than SQLite's
    running of it, and a page runs queries of the same few shapes again and
    again.  *build* makes the query from keyword values; *kinds* names them
    with their type (``int`` or ``str``).  The query is built once with a
    marker for each value, and the parameters equal to a marker are the
    slots the values of a call go into (the others are constants of the shape).
    """

    def __init__(self, build: Callable[..., peewee.Query], **kinds: type) -> None:
        self._build = build
        # markers no real value equals: negative ids, strings holding NUL
        self._marks = {name: (-7_340_032_517 - index if kind is int else f"\x00{name}\x00")
                       for index, (name, kind) in enumerate(kinds.items())}
        #: per kind of database (the SQL depends on its dialect only)
        self._compiled: dict[type, tuple[str, list[Any], list[tuple[int, str]]]] = {}

    def _execute(self, values: dict[str, Any]) -> Any:
        dialect = type(database_proxy.obj)
        compiled = self._compiled.get(dialect)
        if compiled is None:
            sql, params = self._build(**self._marks).sql()
            slots = [(index, name) for index, param in enumerate(params)
                     for name, mark in self._marks.items() if type(param) is type(mark) and param == mark]
            compiled = self._compiled[dialect] = (sql, list(params), slots)
        sql, params, slots = compiled
        bound = list(params)
        for index, name in slots:
            bound[index] = values[name]
        return database_proxy.execute_sql(sql, bound)

    def tuples(self, **values: Any) -> list[tuple[Any, ...]]:
        return list(self._execute(values).fetchall())

    def dicts(self, **values: Any) -> list[dict[str, Any]]:
        cursor = self._execute(values)
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def projects_query(sort: str, status: str = "", *, like: str | None = None, ecosystem: str | None = None,
                   backend: str | None = None, distro: int | None = None) -> peewee.SelectQuery:
    """The projects list: containing *like* (a LIKE pattern) in a name, package, homepage or backend, of the
    case-folded *ecosystem*, of *backend*, of the ``?status=`` *status*, packaged in the distribution *distro*."""
    query = Project.select(*LIST_COLUMNS)
    if like is not None:
        query = query.where(matching(like))
    if ecosystem is not None:
        query = query.where(Project.ecosystem_key == ecosystem)
    if backend is not None:
        query = query.where(Project.backend == backend)
    if status:
        query = query.where(STATUS_FILTERS[status]())
    if distro is not None:
        query = query.where(Project.id.in_(Package.select(Package.project).where(Package.distro == distro)))
    return sorted_by(query, sort)


_LIST_KINDS = {"like": str, "ecosystem": str, "backend": str, "distro": int}
#: (sort, status, the filters given) -> the count and the page queries of that shape
_LISTS: dict[tuple[str, str, tuple[str, ...]], tuple[Prepared, Prepared]] = {}


def listed_projects(sort: str, status: str = "", **filters: Any) -> tuple[Pager, list[dict[str, Any]]]:
    """The pager and the rows of the current page of :func:`projects_query` (two queries, SQL built once)."""
    key = (sort, status, tuple(sorted(filters)))
    prepared = _LISTS.get(key)
    if prepared is None:
        kinds = {name: _LIST_KINDS[name] for name in key[2]}
        prepared = _LISTS[key] = (
            Prepared(lambda **marks: projects_query(sort, status, **marks).select(fn.COUNT(Project.id)).order_by(),
                     **kinds),
            Prepared(lambda limit, offset, **marks: projects_query(sort, status, **marks).limit(limit).offset(offset),
                     limit=int, offset=int, **kinds))
    count, page_rows = prepared
    page = page_number()
    total = count.tuples(**filters)[0][0]
    found = page_rows.dicts(limit=PER_PAGE, offset=(page - 1) * PER_PAGE, **filters) \
        if total > (page - 1) * PER_PAGE else []
    return Pager(page, PER_PAGE, total), with_times(found)


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
