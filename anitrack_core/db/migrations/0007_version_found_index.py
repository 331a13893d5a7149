"""Versions by the time they were found: the Atom feeds read the newest first across projects."""


def up(migrator, db):
    db.execute_sql("CREATE INDEX IF NOT EXISTS project_version_created_on ON project_version (created_on)")


def down(migrator, db):
    db.execute_sql("DROP INDEX IF EXISTS project_version_created_on")
