"""Writing imported records into anitrack's store, a batch per transaction.

Every write is idempotent: a row is inserted when absent, updated when it
differs, left alone when equal, so running an import twice changes nothing
and a run killed midway, run again, finishes the job.  Ids are kept
(projects, packages, flags, users).

Where anitrack's rules refuse an Anitya row, the rule applied is (see
docs/operator-guide.md, "Moving from Anitya"):

* a project whose name is taken in its ecosystem by another project that
  differs only in letter case (legal in Anitya, not here): the project with
  the lowest id keeps the ecosystem; the other is imported *outside* it, with
  its homepage as ecosystem (as Anitya does for projects in no ecosystem), so
  its id, versions, packages and flags are kept;
* distributions whose names differ only in letter case become one;
* a package name taken in its distribution by another package (after such a
  merge), a package whose project is gone, a flag in a state other than
  open/closed, a user whose e-mail differs from an earlier one's only in letter
  case (and that user's tokens), a token that is not 40 letters and digits:
  skipped;
* a backend or version scheme anitrack lacks: imported as it is, reported
  (install the plugin that provides it).

Each of these is reported row by row.  Imported history announces nothing on
the bus unless asked (``publish_events``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import peewee

from .. import events
from ..db.accounts import token_digest
from ..db.listings import refresh_listings
from ..db.models import ApiToken, Distro, Package, Project, ProjectFlag, ProjectVersion, User
from ..events import messages
from ..listing import SchemeCache, list_versions
from .report import ImportReport

if TYPE_CHECKING:
    from ..plugins import Plugins

#: a timestamp Anitya left empty where anitrack needs one ("long ago": a check is due at once)
LONG_AGO = datetime(1970, 1, 1)
#: rows per INSERT statement
CHUNK = 500
TOKEN_RE = re.compile(r"^[A-Za-z0-9]{40}$")
FLAG_STATES = ("open", "closed")
#: project columns the import sets (the rest are anitrack's own: listing, HTTP validators)
PROJECT_FIELDS = ("name", "name_key", "homepage", "backend", "ecosystem_name", "ecosystem_key", "in_ecosystem",
                  "version_url", "regex", "version_prefix", "version_scheme", "version_pattern",
                  "pre_release_filter", "version_filter", "insecure", "releases_only", "error_counter",
                  "latest_version", "latest_version_cursor", "logs", "check_successful", "archived",
                  "created_on", "updated_on", "last_check", "next_check")


def _describe(project: dict[str, Any]) -> str:
    return f"project {project['id']} {project['name']!r} ({project['ecosystem_name']})"


class Writer:
    """Writes what a reader gives into the store bound to :data:`~anitrack_core.db.models.database_proxy`."""

    def __init__(self, plugins: Plugins, report: ImportReport, *, publish_events: bool = False,
                 agent: str = "anitrack import") -> None:
        self.plugins = plugins
        self.report = report
        self.publish_events = publish_events
        self.agent = agent
        self.schemes = SchemeCache(plugins)
        self.db = Project._meta.database
        #: source distro name -> anitrack distro id
        self.distro_ids: dict[str, int] = {}
        #: source user id -> anitrack user id
        self.user_ids: dict[Any, Any] = {}
        self.unknown_backends: Counter[str] = Counter()
        self.unknown_schemes: Counter[str] = Counter()
        self._example: dict[tuple[str, str], int] = {}

    # ---- distributions ---------------------------------------------------------------------------

    def distros(self, names: Iterable[str]) -> None:
        """Import distributions (names differing only in letter case become one)."""
        existing = {d.name_key: d for d in Distro.select()}
        with self.db.atomic():
            for name in sorted(names):
                key = name.casefold()
                found = existing.get(key)
                if found is None:
                    found = Distro.create(name=name, name_key=key)
                    existing[key] = found
                    self.report.new["distros"] += 1
                    if self.publish_events:
                        events.record("distro.add", messages.distro_add(name, self.agent))
                elif found.name != name:
                    self.report.problem("distros", f"distro {name!r}", "name differs only in letter case from "
                                        "another distribution's: merged into it", skipped=False)
                    self.report.unchanged["distros"] += 1
                else:
                    self.report.unchanged["distros"] += 1
                self.distro_ids[name] = found.id

    def _distro_id(self, name: str) -> int:
        if name not in self.distro_ids:
            self.distros([name])
        return self.distro_ids[name]

    # ---- users and tokens ------------------------------------------------------------------------

    def users(self, users: Sequence[dict[str, Any]], tokens: Sequence[dict[str, Any]]) -> None:
        """Import users (ids, active and admin flags kept) and their tokens, stored as digests."""
        by_id = {u.id: u for u in User.select()}
        by_key = {u.email_key: u for u in by_id.values()}
        taken: dict[str, Any] = {}
        with self.db.atomic():
            for user in users:
                key = user["email"].strip().casefold()
                row = {"email": user["email"].strip(), "email_key": key,
                       "username": (user["username"] or user["email"].split("@")[0]).strip()[:256],
                       "active": user["active"], "admin": user["admin"]}
                if key in taken:
                    self.report.problem("users", f"user {user['id']} {user['email']!r}",
                                        "e-mail differs only in letter case from another user's, who is kept (its tokens "
                                        "are skipped too)")
                    continue
                taken[key] = user["id"]
                mine = by_id.get(user["id"])
                if mine is None and key in by_key:
                    mine = by_key[key]
                    self.report.problem("users", f"user {user['id']} {user['email']!r}",
                                        f"already in anitrack with that e-mail (user {mine.id}): its tokens go "
                                        "to that user", skipped=False)
                if mine is None:
                    User.insert(id=user["id"], created_on=LONG_AGO, **row).execute()
                    self.report.new["users"] += 1
                    self.user_ids[user["id"]] = user["id"]
                    continue
                self.user_ids[user["id"]] = mine.id
                if mine.id != user["id"]:
                    self.report.unchanged["users"] += 1
                    continue
                if any(getattr(mine, k) != v for k, v in row.items()):
                    User.update(**row).where(User.id == mine.id).execute()
                    self.report.changed["users"] += 1
                else:
                    self.report.unchanged["users"] += 1
            existing = {t.token: t for t in ApiToken.select()}
            for token in tokens:
                secret = token["secret"] or ""
                shown = f"token {secret[:4]}... of user {token['user_id']}"
                if not TOKEN_RE.match(secret):
                    self.report.problem("tokens", shown, "not 40 letters and digits: anitrack could not accept it")
                    continue
                owner = self.user_ids.get(token["user_id"])
                if owner is None:
                    self.report.problem("tokens", shown, "its user was not imported")
                    continue
                digest = token_digest(secret)
                if digest in existing:
                    self.report.unchanged["tokens"] += 1
                    continue
                ApiToken.insert(token=digest, hint=secret[:4], user=owner, description=token["description"],
                                created=token["created"] or LONG_AGO).execute()
                existing[digest] = True  # type: ignore[assignment]
                self.report.new["tokens"] += 1

    # ---- projects --------------------------------------------------------------------------------

    def projects(self, batch: Sequence[dict[str, Any]]) -> None:
        """Import one batch of projects with their versions, packages and flags, in one transaction."""
        if not batch:
            return
        rows = [self._project_row(p) for p in batch]
        ids = [r["id"] for r in rows]
        with self.db.atomic():
            existing = {r["id"]: r for r in Project.select().where(Project.id.in_(ids)).dicts()}
            self._settle_ecosystems(rows)
            new_rows, changed_ids = [], []
            for row, source in zip(rows, batch):
                old = existing.get(row["id"])
                if old is None:
                    scheme = self.schemes.for_project(row)
                    row["version_listing"] = list_versions(
                        scheme, [(v, on) for v, on, _ in source["versions"]]).to_json(scheme)
                    new_rows.append(row)
                    self.report.new["projects"] += 1
                elif any(old[k] != row[k] for k in PROJECT_FIELDS):
                    Project.update(**{k: row[k] for k in PROJECT_FIELDS}).where(Project.id == row["id"]).execute()
                    changed_ids.append(row["id"])
                    self.report.changed["projects"] += 1
                else:
                    self.report.unchanged["projects"] += 1
            for chunk in _chunks(new_rows, CHUNK // 5):
                Project.insert_many(chunk).execute()
            grown = self._versions(batch, {r["id"] for r in new_rows})
            refresh_listings(self.schemes, set(changed_ids) | grown)
            new_packages = self._packages(batch)
            self._flags(batch)
            if self.publish_events:
                self._announce([r["id"] for r in new_rows], new_packages)

    def _project_row(self, p: dict[str, Any]) -> dict[str, Any]:
        backend = p["backend"] or "custom"
        found = self.plugins.backends.find(backend)
        if found is not None:
            backend = found.name
        else:
            self._unknown(self.unknown_backends, "backend", backend, p["id"])
        scheme = p["version_scheme"] or None
        if scheme:
            known = self.plugins.schemes.find(scheme)
            if known is not None:
                scheme = known.name
            else:
                self._unknown(self.unknown_schemes, "scheme", scheme, p["id"])
        ecosystem = p["ecosystem_name"] or p["homepage"]
        registered = self.plugins.ecosystems.find(ecosystem)
        in_ecosystem = registered is not None and registered.name.casefold() == ecosystem.casefold()
        if in_ecosystem:
            ecosystem = registered.name
        created = p["created_on"] or LONG_AGO
        return {
            "id": p["id"], "name": p["name"], "name_key": p["name"].casefold(), "homepage": p["homepage"],
            "backend": backend, "ecosystem_name": ecosystem, "ecosystem_key": ecosystem.casefold(),
            "in_ecosystem": in_ecosystem, "version_url": p["version_url"] or None, "regex": p["regex"] or None,
            "version_prefix": p["version_prefix"] or None, "version_scheme": scheme,
            "version_pattern": p["version_pattern"] or None, "pre_release_filter": p["pre_release_filter"] or None,
            "version_filter": p["version_filter"] or None, "insecure": bool(p["insecure"]),
            "releases_only": bool(p["releases_only"]), "error_counter": p["error_counter"] or 0,
            "latest_version": p["latest_version"], "latest_version_cursor": p.get("latest_version_cursor"),
            "logs": p["logs"], "check_successful": p["check_successful"], "archived": bool(p["archived"]),
            "created_on": created, "updated_on": p["updated_on"] or created, "last_check": p["last_check"],
            "next_check": p["next_check"] or LONG_AGO,
        }

    def _unknown(self, counter: Counter[str], what: str, name: str, project_id: int) -> None:
        counter[name] += 1
        self._example.setdefault((what, name), project_id)

    def _settle_ecosystems(self, rows: list[dict[str, Any]]) -> None:
        """Apply the letter-case rule: the lowest id keeps a name in an ecosystem, the others move out.

        Rows come in id order from a database, so a later row moves out; the API lists projects by
        name, so a stored project may have to make way for a row with a lower id.
        """
        keys = {(r["name_key"], r["ecosystem_key"]) for r in rows if r["in_ecosystem"]}
        if not keys:
            return
        holders: dict[tuple[str, str], dict[str, Any]] = {}
        names = {k[0] for k in keys}
        query = (Project.select(Project.id, Project.name, Project.name_key, Project.ecosystem_key,
                                Project.ecosystem_name, Project.homepage)
                 .where((Project.in_ecosystem == True) & Project.name_key.in_(names)))  # noqa: E712
        for stored in query.dicts():
            key = (stored["name_key"], stored["ecosystem_key"])
            if key not in holders or holders[key]["id"] > stored["id"]:
                holders[key] = stored
        for row in sorted(rows, key=lambda r: r["id"]):
            key = (row["name_key"], row["ecosystem_key"])
            if not row["in_ecosystem"]:
                continue
            holder = holders.get(key)
            if holder is None or holder["id"] == row["id"]:
                holders[key] = row
                continue
            older, younger = (holder, row) if holder["id"] < row["id"] else (row, holder)
            self.report.problem(
                "projects", f"{_describe(younger)}, name taken by project {older['id']} {older['name']!r}",
                "name differs only in letter case from an older project's in the same ecosystem: imported "
                "outside the ecosystem (its ecosystem is its homepage)", skipped=False)
            moved = {"ecosystem_name": younger["homepage"], "ecosystem_key": younger["homepage"].casefold(),
                     "in_ecosystem": False}
            if younger is holder:  # stored by an earlier batch: make way
                Project.update(**moved).where(Project.id == holder["id"]).execute()
            younger.update(moved)
            holders[key] = older

    def _versions(self, batch: Sequence[dict[str, Any]], new_ids: set[int]) -> set[int]:
        """Insert the versions not yet stored; returns the ids of existing projects that got new ones."""
        grown: set[int] = set()
        rows = [{"project": p["id"], "version": v, "created_on": on, "commit_url": url}
                for p in batch for v, on, url in p["versions"]]
        total = 0
        for chunk in _chunks(rows, CHUNK):
            if {r["project"] for r in chunk} <= new_ids:
                ProjectVersion.insert_many(chunk).execute()
                total += len(chunk)
                continue
            added = ProjectVersion.insert_many(chunk).on_conflict_ignore().as_rowcount().execute()
            total += added
            if added:
                grown |= {r["project"] for r in chunk} - new_ids
        self.report.new["versions"] += total
        self.report.unchanged["versions"] += len(rows) - total
        return grown

    def _packages(self, batch: Sequence[dict[str, Any]]) -> list[tuple[int, str, str]]:
        """Insert or update the packages; returns ``(project id, distro, name)`` of the new ones."""
        wanted = [{"id": pkg["id"], "distro": self._distro_id(pkg["distro"]), "project": p["id"],
                   "package_name": pkg["package_name"], "package_key": pkg["package_name"].casefold(),
                   "_distro": pkg["distro"]} for p in batch for pkg in p["packages"]]
        if not wanted:
            return []
        by_id = {r["id"]: r for r in Package.select(Package.id, Package.distro, Package.project, Package.package_name)
                 .where(Package.id.in_([w["id"] for w in wanted])).dicts()}
        holder: dict[tuple[int, str], int] = {}
        for pid, distro, name in (Package.select(Package.id, Package.distro, Package.package_name)
                                  .where(Package.package_name.in_({w["package_name"] for w in wanted})).tuples()):
            holder[(distro, name)] = pid
        new, inserts = [], []
        for w in wanted:
            key = (w["distro"], w["package_name"])
            mine = by_id.get(w["id"])
            other = holder.get(key)
            if other is not None and other != w["id"]:
                self.report.problem("packages", f"package {w['id']} {w['package_name']!r} in {w['_distro']} of "
                                    f"project {w['project']}", f"name taken in that distribution by package {other}")
                continue
            fields = {k: w[k] for k in ("distro", "project", "package_name", "package_key")}
            if mine is None:
                inserts.append({"id": w["id"], **fields})
                holder[key] = w["id"]
                new.append((w["project"], w["_distro"], w["package_name"]))
            elif (mine["distro"], mine["project"], mine["package_name"]) != (w["distro"], w["project"],
                                                                             w["package_name"]):
                Package.update(**fields).where(Package.id == w["id"]).execute()
                holder[key] = w["id"]
                self.report.changed["packages"] += 1
            else:
                self.report.unchanged["packages"] += 1
        for chunk in _chunks(inserts, CHUNK):
            Package.insert_many(chunk).execute()
        self.report.new["packages"] += len(inserts)
        return new

    def mapped_packages(self, items: Sequence[dict[str, Any]]) -> None:
        """Import packages as the v2 API lists them (``distribution``, ``name``, ``project``, ``ecosystem``)."""
        with self.db.atomic():
            names = {item["project"] for item in items}
            candidates: dict[str, list[tuple[int, str, str, bool]]] = {}
            for pid, name, ecosystem, backend, in_ecosystem in (
                    Project.select(Project.id, Project.name, Project.ecosystem_name, Project.backend,
                                   Project.in_ecosystem).where(Project.name.in_(names)).order_by(Project.id).tuples()):
                candidates.setdefault(name, []).append((pid, ecosystem, backend, in_ecosystem))
            new = []
            for item in items:
                shown = f"package {item['name']!r} in {item['distribution']} of project {item['project']!r}"
                project_id = self._project_for(candidates.get(item["project"], []), item.get("ecosystem") or "")
                if project_id is None:
                    self.report.problem("packages", shown, "its project was not imported")
                    continue
                distro = self._distro_id(item["distribution"])
                found = Package.get_or_none((Package.distro == distro) & (Package.package_name == item["name"]))
                if found is None:
                    Package.insert(distro=distro, project=project_id, package_name=item["name"],
                                   package_key=item["name"].casefold()).execute()
                    self.report.new["packages"] += 1
                    new.append((project_id, item["distribution"], item["name"]))
                elif found.project_id == project_id:
                    self.report.unchanged["packages"] += 1
                else:
                    self.report.problem("packages", shown, f"name taken in that distribution by package {found.id}")
            if self.publish_events:
                self._announce([], new)

    def _project_for(self, candidates: list[tuple[int, str, str, bool]], ecosystem: str) -> int | None:
        """The project a package of the API names: same name and ecosystem, or moved out of that ecosystem."""
        for pid, mine, _, _ in candidates:
            if mine == ecosystem:
                return pid
        for pid, _, backend, in_ecosystem in candidates:
            home = self.plugins.ecosystems.for_backend(backend)
            if not in_ecosystem and home is not None and home.name.casefold() == ecosystem.casefold():
                return pid
        return None

    def _flags(self, batch: Sequence[dict[str, Any]]) -> None:
        wanted = [{**flag, "project": p["id"]} for p in batch for flag in p["flags"]]
        if not wanted:
            return
        existing = {r["id"]: r for r in ProjectFlag.select().where(
            ProjectFlag.id.in_([w["id"] for w in wanted])).dicts()}
        inserts = []
        for w in wanted:
            if w["state"] not in FLAG_STATES:
                self.report.problem("flags", f"flag {w['id']} of project {w['project']} (state {w['state']!r})",
                                    "state is neither open nor closed")
                continue
            row = {"id": w["id"], "project": w["project"], "reason": w["reason"], "state": w["state"],
                   "user": w["user"], "created_on": w["created_on"] or LONG_AGO,
                   "updated_on": w["updated_on"] or w["created_on"] or LONG_AGO}
            old = existing.get(w["id"])
            if old is None:
                inserts.append(row)
            elif any(old[k] != v for k, v in row.items()):
                ProjectFlag.update(**row).where(ProjectFlag.id == w["id"]).execute()
                self.report.changed["flags"] += 1
            else:
                self.report.unchanged["flags"] += 1
        for chunk in _chunks(inserts, CHUNK):
            ProjectFlag.insert_many(chunk).execute()
        self.report.new["flags"] += len(inserts)

    def _announce(self, project_ids: list[int], packages: list[tuple[int, str, str]]) -> None:
        """``project.add`` for each new project, ``project.map.new`` for each new package."""
        projects = {p.id: p for p in Project.select().where(
            Project.id.in_(set(project_ids) | {pid for pid, _, _ in packages}))}
        for pid in project_ids:
            events.record("project.add", messages.project_add(projects[pid], self.agent), project_id=pid)
        for pid, distro, name in packages:
            events.record("project.map.new", messages.map_new(projects[pid], distro, name, self.agent),
                          project_id=pid)

    # ---- the end ---------------------------------------------------------------------------------

    def orphan_packages(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            self.report.problem("packages", f"package {row['id']} {row['package_name']!r} in "
                                f"{row['distro_name']} (project id {row['project_id']})", "its project is gone")

    def finish(self) -> None:
        """Report unknown names; on PostgreSQL move the id sequences past the imported ids."""
        for what, counter in (("backend", self.unknown_backends), ("scheme", self.unknown_schemes)):
            for name, count in sorted(counter.items()):
                self.report.problem(
                    "projects", f"{what} {name!r}: {count} project(s), e.g. project {self._example[(what, name)]}",
                    f"{'backend' if what == 'backend' else 'version scheme'} unknown to anitrack: imported as it "
                    "is; install the plugin that provides it", skipped=False)
        if isinstance(self.db, peewee.PostgresqlDatabase) or isinstance(
                getattr(self.db, "obj", None), peewee.PostgresqlDatabase):
            move_sequences(self.db, (Project, Package, ProjectFlag, Distro, ProjectVersion))


def move_sequences(db: Any, models: Iterable[type[peewee.Model]]) -> None:
    """Set each model's id sequence so that the next id is past the largest stored one (never backwards)."""
    for model in models:
        table = model._meta.table_name
        (sequence,) = db.execute_sql("SELECT pg_get_serial_sequence(%s, 'id')", (f'"{table}"',)).fetchone()
        if sequence is None:
            continue
        db.execute_sql(f'SELECT setval(%s, GREATEST((SELECT COALESCE(MAX(id), 1) FROM "{table}"), '
                       f"(SELECT last_value FROM {sequence})))", (sequence,))


def _chunks(rows: list[Any], size: int) -> Iterable[list[Any]]:
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


__all__ = ["LONG_AGO", "Writer", "move_sequences"]
