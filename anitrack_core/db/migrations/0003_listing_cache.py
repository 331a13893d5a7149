"""Keep each project's version listing ready, and index the list order.

``version_listing`` holds the project's versions as clients see them (sorted
newest first by its scheme, filters applied, stable ones apart) as JSON, so
list pages need neither the version rows nor sorting.  Triggers clear it
whenever a row of ``project_version`` is inserted, changed or deleted, by any
path, so a listing that no longer matches the versions is never served:
readers recompute a missing one, and writers store the fresh one last.
``anitrack db upgrade`` fills it for existing projects.  The index serves the
stable order of GET /api/v2/projects/ (name, ecosystem, id) without a sort.
"""

from peewee import PostgresqlDatabase, TextField

SQLITE_TRIGGERS = [
    f"CREATE TRIGGER project_version_{event.lower()}_forgets_listing AFTER {event} ON project_version "
    f"BEGIN UPDATE project SET version_listing = NULL WHERE id = {row}.project_id; END"
    for event, row in (("INSERT", "NEW"), ("UPDATE", "OLD"), ("DELETE", "OLD"))
] + [
    "CREATE TRIGGER project_version_update_forgets_new_listing AFTER UPDATE OF project_id ON project_version "
    "BEGIN UPDATE project SET version_listing = NULL WHERE id = NEW.project_id; END",
]
POSTGRES_TRIGGER = [
    """CREATE FUNCTION project_version_forgets_listing() RETURNS trigger AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            UPDATE project SET version_listing = NULL WHERE id = OLD.project_id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            UPDATE project SET version_listing = NULL WHERE id = NEW.project_id;
        END IF;
        RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    "CREATE TRIGGER project_version_forgets_listing AFTER INSERT OR UPDATE OR DELETE ON project_version "
    "FOR EACH ROW EXECUTE FUNCTION project_version_forgets_listing()",
]


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("project", "version_listing", TextField(null=True)),
        migrator.add_index("project", ("name_key", "ecosystem_key", "id")),
    )
    for statement in POSTGRES_TRIGGER if isinstance(db, PostgresqlDatabase) else SQLITE_TRIGGERS:
        db.execute_sql(statement)


def down(migrator, db):
    if isinstance(db, PostgresqlDatabase):
        db.execute_sql("DROP TRIGGER project_version_forgets_listing ON project_version")
        db.execute_sql("DROP FUNCTION project_version_forgets_listing()")
    else:
        for name in ("insert", "update", "delete"):
            db.execute_sql(f"DROP TRIGGER project_version_{name}_forgets_listing")
        db.execute_sql("DROP TRIGGER project_version_update_forgets_new_listing")
    migrator.migrate(
        migrator.drop_index("project", "project_name_key_ecosystem_key_id"),
        migrator.drop_column("project", "version_listing"),
    )
