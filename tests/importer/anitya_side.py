"""Run by the throwaway virtualenv's python, where the real Anitya is installed (not by pytest).

``python anitya_side.py fill DB_URL OUT.json``
    create Anitya's database with its own code (tables and Alembic stamp), fill it
    through its own models, and write what the tests need to know (tokens) to OUT.json.
``python anitya_side.py serve DB_URL``
    serve Anitya's own Flask app with waitress on a free loopback port; prints the port.
``python anitya_side.py bulk DB_URL COUNT``
    add COUNT plain projects with three versions each (for the kill-and-resume test).
"""

import datetime
import json
import os
import sys
import tempfile


def _configure(db_url):
    if db_url.startswith(("postgresql://", "postgres://")):  # SQLAlchemy 2.1 would pick psycopg 3
        db_url = "postgresql+psycopg2://" + db_url.split("://", 1)[1]
    path = os.path.join(tempfile.mkdtemp(prefix="anitya-config-"), "anitya.toml")
    with open(path, "w", encoding="utf-8") as out:
        out.write(f'db_url = "{db_url}"\nsecret_key = "tests"\nauthlib_enabled_backends = []\n')
    os.environ["ANITYA_WEB_CONFIG"] = path
    os.environ["TZ"] = "UTC"
    from anitya import app as anitya_app

    return anitya_app.create()


def _when(day, hour=0):
    return datetime.datetime(2024, 1, day, hour, 30, 15, 123456)


def fill(db_url, out_path):
    app = _configure(db_url)
    import sqlalchemy as sa
    from anitya.db import db, models

    with app.app_context():
        db.manager.create()
        session = db.session
        for name in ("Fedora", "Debian", "debian", "Ubuntu"):
            session.add(models.Distro(name=name))

        def project(name, homepage, backend="custom", ecosystem=None, versions=(), **fields):
            row = models.Project(name=name, homepage=homepage, backend=backend,
                                 ecosystem_name=ecosystem or homepage, created_on=_when(1),
                                 updated_on=_when(2), **fields)
            session.add(row)
            session.flush()
            for i, version in enumerate(versions):
                raw, url = version if isinstance(version, tuple) else (version, None)
                session.add(models.ProjectVersion(project_id=row.id, version=raw, created_on=_when(3 + i, i),
                                                  commit_url=url))
            session.flush()
            return row

        requests = project("requests", "https://pypi.org/project/requests", "PyPI", "pypi",
                           ["2.0.0", "2.1.0", "2.2.0rc1"], latest_version="2.2.0rc1", version_scheme="Python (PEP 440)",
                           error_counter=2, check_successful=True, logs="Version retrieved correctly")
        twin = project("Requests", "https://pypi.org/project/Requests", "PyPI", "pypi", ["0.1"],
                       latest_version="0.1")
        geany = project("geany", "https://www.geany.org/", "custom", None,
                        ["1.36", ("1.37.1", "https://github.com/geany/geany/commit/abc")],
                        version_url="https://www.geany.org/Download/Releases", regex="DEFAULT",
                        latest_version="1.37.1", insecure=True)
        gone = project("gone", "https://gone.example.org/", versions=["1"])
        project("oldproj", "https://old.example.org/", versions=["0.1", "0.2"], latest_version="0.2",
                archived=True)
        project("prefixed", "https://prefixed.example.org/", "GitHub", versions=["v1.0", "v1.2", "v1.10"],
                version_prefix="v", version_url="owner/prefixed", latest_version="1.10", releases_only=True)
        project("stale", "https://stale.example.org/", versions=["0.9", "1.0"], latest_version="0.9")
        project("noscheme", "https://noscheme.example.org/", versions=["1.0", "1.0.1"], version_scheme="",
                latest_version="1.0.1")
        project("filtered", "https://filtered.example.org/", versions=["1.0", "1.1rc1", "1.1", "2.0-beta"],
                version_filter="beta", pre_release_filter="rc", latest_version="1.1")
        project("semantic", "https://semantic.example.org/", versions=["1.2.3", "1.10.0", "2.0.0-alpha.1"],
                version_scheme="Semantic", latest_version="2.0.0-alpha.1")
        project("calendar", "https://calendar.example.org/", versions=["2023.01", "2024.02"],
                version_scheme="Calendar", version_pattern="YYYY.0M", latest_version="2024.02")
        project("empty", "https://empty.example.org/")
        leftpad = project("left-pad", "https://www.npmjs.com/package/left-pad", "npmjs", "npm", ["1.3.0"],
                          latest_version="1.3.0")
        olddates = project("olddates", "https://olddates.example.org/", versions=["1.0", "2.0"],
                           latest_version="2.0")
        session.flush()
        session.delete(gone)  # a gap in the ids
        session.flush()
        session.execute(sa.text("UPDATE projects_versions SET created_on = NULL WHERE project_id = :id"),
                        {"id": olddates.id})
        session.execute(sa.text("UPDATE projects SET backend = 'Google code' WHERE name = 'oldproj'"))
        for distro, name, owner in (("Fedora", "python-requests", requests), ("Debian", "python3-requests", requests),
                                    ("Fedora", "geany", geany), ("Debian", "geany", geany),
                                    ("debian", "geany", geany), ("Ubuntu", "node-left-pad", leftpad)):
            session.add(models.Packages(distro_name=distro, package_name=name, project_id=owner.id))
        session.add(models.ProjectFlag(project_id=requests.id, reason="wrong homepage", user="alice",
                                       state="open"))
        session.add(models.ProjectFlag(project_id=twin.id, reason="duplicate", user="bob", state="closed"))
        alice = models.User(email="alice@example.org", username="alice", admin=True, active=True)
        bob = models.User(email="bob@example.org", username="bob", active=False)
        shouty = models.User(email="ALICE@example.org", username="alice2")
        session.add_all([alice, bob, shouty])
        session.flush()
        tokens = {}
        for user, description in ((alice, "scripts"), (alice, None), (bob, "old"), (shouty, "twin")):
            token = models.ApiToken(user=user, description=description)
            session.add(token)
            session.flush()
            tokens.setdefault(user.username, []).append(token.token)
        ids = {"twin": twin.id, "requests": requests.id}
        session.commit()
        # a package whose project is gone (an old database without enforced foreign keys)
        engine = db.manager.engine
        with engine.begin() as conn:
            if engine.dialect.name == "postgresql":
                conn.execute(sa.text("SET session_replication_role = replica"))
            else:
                conn.execute(sa.text("PRAGMA foreign_keys = OFF"))
            conn.execute(sa.text("INSERT INTO packages (distro_name, package_name, project_id) "
                                 "VALUES ('Fedora', 'orphan', 9999)"))
        revision = db.manager.get_current_revision()
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump({"tokens": tokens, "revision": revision, **ids}, out)


def bulk(db_url, count):
    app = _configure(db_url)
    from anitya.db import db, models

    with app.app_context():
        db.manager.create()
        session = db.session
        session.add(models.Distro(name="Fedora"))
        for i in range(int(count)):
            row = models.Project(name=f"bulk{i:05d}", homepage=f"https://bulk{i}.example.org/", backend="custom",
                                 ecosystem_name=f"https://bulk{i}.example.org/", latest_version="1.2")
            session.add(row)
            session.flush()
            for version in ("1.0", "1.1", "1.2"):
                session.add(models.ProjectVersion(project_id=row.id, version=version))
            session.add(models.Packages(distro_name="Fedora", package_name=f"bulk{i:05d}", project_id=row.id))
        session.commit()


def serve(db_url):
    app = _configure(db_url)
    import waitress.server

    server = waitress.server.create_server(app, host="127.0.0.1", port=0, threads=4)
    print(f"PORT {server.effective_port}", flush=True)
    server.run()


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"fill": fill, "serve": serve, "bulk": bulk}[command](*args)
