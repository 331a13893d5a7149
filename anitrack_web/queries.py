"""The store reads behind the API: few queries per request, whatever the page size.

A list page costs one COUNT, one page of rows and one query per related
table for the whole page (versions, packages), never one per item.  Rows come
back as plain dicts, which is several times cheaper than model instances.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import peewee
from peewee import SQL, NodeList, Value

from anitrack_core.db.models import Distro, Package, Project, database_proxy

PROJECT_COLUMNS = (
    Project.id, Project.name, Project.homepage, Project.backend, Project.ecosystem_name, Project.regex,
    Project.version_url, Project.latest_version, Project.created_on, Project.updated_on,
    Project.version_scheme, Project.version_prefix, Project.pre_release_filter, Project.version_filter,
    Project.version_pattern, Project.archived, Project.version_listing,
)


def ordered(field: peewee.Field) -> Any:
    """*field* for ORDER BY in plain code-point order on every database (PostgreSQL collations differ)."""
    if isinstance(database_proxy.obj, peewee.PostgresqlDatabase):
        return field.collate('"C"')
    return field


def like_pattern(pattern: str, *, prefix_when_plain: bool = True) -> str:
    """A case-folded LIKE pattern for a user pattern where ``*`` is the only wildcard."""
    if prefix_when_plain and "*" not in pattern:
        pattern += "*"
    escaped = pattern.casefold().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%")


def matches(field: peewee.Field, like: str) -> NodeList:
    """``field LIKE like ESCAPE '\\'``, written out: peewee turns its LIKE operator into GLOB on SQLite.

    *field* holds case-folded text and *like* is case-folded, so the match ignores case on both
    databases.
    """
    return NodeList((field, SQL("LIKE"), Value(like), SQL("ESCAPE"), Value("\\")))


def rows(query: peewee.SelectQuery) -> list[dict[str, Any]]:
    """The rows of *query* as dicts, straight from the cursor.

    peewee's own row conversion costs more than the query on list pages; the
    only columns needing conversion (timestamps) are read with :func:`timestamp`.
    """
    sql, params = query.sql()
    cursor = database_proxy.execute_sql(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def timestamp(value: Any) -> datetime | None:
    """A timestamp column as read from either database (SQLite gives text)."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(value)


def page_of(query: peewee.SelectQuery, page: int, per_page: int) -> tuple[int, list[dict[str, Any]]]:
    """(total matches, the rows of page *page*), counted before paging."""
    total = query.count()
    if total <= (page - 1) * per_page:
        return total, []
    return total, rows(query.paginate(page, per_page))


def projects_query(*, name: str | None = None, ecosystem: str | None = None) -> peewee.SelectQuery:
    query = Project.select(*PROJECT_COLUMNS)
    if name:
        query = query.where(Project.name_key == name.casefold())
    if ecosystem:
        query = query.where(Project.ecosystem_key == ecosystem.casefold())
    return query.order_by(ordered(Project.name_key), ordered(Project.ecosystem_key), Project.id)


def project_by_id(project_id: int) -> dict[str, Any] | None:
    found = rows(Project.select(*PROJECT_COLUMNS).where(Project.id == project_id))
    return found[0] if found else None


def packages_of(project_ids: Iterable[int]) -> dict[int, list[dict[str, str]]]:
    """``{project id: [{"distro": ..., "package_name": ...}, ...]}`` in one query."""
    ids = list(set(project_ids))
    found: dict[int, list[dict[str, str]]] = defaultdict(list)
    if ids:
        rows = (Package.select(Package.project, Distro.name, Package.package_name).join(Distro)
                .where(Package.project.in_(ids))
                .order_by(ordered(Distro.name_key), ordered(Package.package_name), Package.id).tuples())
        for project_id, distro, package_name in rows:
            found[project_id].append({"distro": distro, "package_name": package_name})
    return found
