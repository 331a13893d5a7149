"""Database URLs are read by playhouse.db_url: encoded credentials decoded, query options kept."""

import pytest

from anitrack_core.db.database import make_database, redact
from anitrack_core.errors import StoreError


def test_a_postgresql_url_keeps_its_options_and_decodes_its_password():
    db = make_database("postgresql://anitrack:p%40ss%2Fw@db.example:5433/tracker?sslmode=require&connect_timeout=3")
    assert db.database == "tracker"
    assert db.connect_params["password"] == "p@ss/w"
    assert db.connect_params["user"] == "anitrack"
    assert (db.connect_params["host"], db.connect_params["port"]) == ("db.example", 5433)
    assert db.connect_params["sslmode"] == "require"
    assert db.connect_params["connect_timeout"] == 3


def test_sqlite_urls_name_a_file(tmp_path):
    assert make_database(f"sqlite:///{tmp_path}/a.db").database == f"{tmp_path}/a.db"
    with pytest.raises(StoreError, match="names no file"):
        make_database("sqlite://")


@pytest.mark.parametrize("url, message", [
    ("postgresql://u@h:notaport/db", "malformed"),
    ("postgresql://u@h:5432/", "names no database"),
    ("mysql://u@h/db", "unsupported database URL"),
])
def test_bad_urls_are_clear_errors(url, message):
    with pytest.raises(StoreError, match=message):
        make_database(url)


def test_passwords_never_show_in_messages():
    assert "p%40ss" not in redact("postgresql://u:p%40ss@h/db")
