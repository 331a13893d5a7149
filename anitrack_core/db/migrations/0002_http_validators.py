"""Remember each project's last upstream validators, for conditional requests.

``http_etag`` and ``http_last_modified`` hold the ETag and Last-Modified
headers of the project's last full upstream answer, sent back as
If-None-Match / If-Modified-Since so an unchanged upstream answers 304.
"""

from peewee import TextField


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("project", "http_etag", TextField(null=True)),
        migrator.add_column("project", "http_last_modified", TextField(null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column("project", "http_etag"),
        migrator.drop_column("project", "http_last_modified"),
    )
