"""Benchmark of `anitrack import anitya-db` from PostgreSQL: prints the figures (not a test, not run by CI).

    python bench/import.py                       # 100,000 projects, 1,000,000 versions
    python bench/import.py --projects 10000      # a smaller run

It starts a throwaway PostgreSQL server (Debian's binaries, tests/servers/postgres.py), makes an
Anitya database there with the tables and columns of Anitya's schema revision ebc827e80373 (the
Alembic stamp included) filled by generate_series (10 versions per project, one package per
project, a flag every 100 projects, 1,000 users with a token each), makes an empty anitrack database
on the same server, and runs the import as the command does, in a subprocess, timing it and reading
its peak memory (ru_maxrss).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ANITYA_SCHEMA = """
CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY);
INSERT INTO alembic_version VALUES ('ebc827e80373');
CREATE TABLE distros (name VARCHAR(200) PRIMARY KEY);
CREATE TABLE projects (
    id SERIAL PRIMARY KEY, name VARCHAR(200) NOT NULL, homepage VARCHAR(200) NOT NULL,
    backend VARCHAR(200), ecosystem_name VARCHAR(200) NOT NULL, version_url VARCHAR(200), regex VARCHAR(200),
    version_prefix VARCHAR(200), version_pattern VARCHAR(200), insecure BOOLEAN NOT NULL,
    releases_only BOOLEAN NOT NULL, error_counter INTEGER, version_scheme VARCHAR(50),
    pre_release_filter VARCHAR(200), archived BOOLEAN NOT NULL, version_filter VARCHAR(200),
    latest_version VARCHAR(50), logs TEXT, check_successful BOOLEAN, last_check TIMESTAMPTZ,
    next_check TIMESTAMPTZ, updated_on TIMESTAMP DEFAULT now(), created_on TIMESTAMP,
    UNIQUE (name, homepage), CONSTRAINT "UNIQ_PROJECT_NAME_PER_ECOSYSTEM" UNIQUE (name, ecosystem_name));
CREATE TABLE projects_versions (
    project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE, version VARCHAR(50),
    created_on TIMESTAMP, commit_url VARCHAR(200), PRIMARY KEY (project_id, version));
CREATE TABLE packages (
    id SERIAL PRIMARY KEY, distro_name VARCHAR(200) REFERENCES distros(name), project_id INTEGER
    REFERENCES projects(id) ON DELETE CASCADE, package_name VARCHAR(200), UNIQUE (distro_name, package_name));
CREATE TABLE projects_flags (
    id SERIAL PRIMARY KEY, project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE, reason TEXT NOT NULL,
    "user" VARCHAR(200) NOT NULL, state VARCHAR(50) NOT NULL, created_on TIMESTAMP, updated_on TIMESTAMP);
CREATE TABLE users (
    id UUID PRIMARY KEY, email VARCHAR(256) NOT NULL UNIQUE, username VARCHAR(256) NOT NULL,
    active BOOLEAN, admin BOOLEAN);
CREATE TABLE tokens (
    token VARCHAR(40) PRIMARY KEY, created TIMESTAMP NOT NULL, user_id UUID NOT NULL REFERENCES users(id),
    description TEXT);
"""

FILL = """
INSERT INTO distros VALUES ('Fedora'), ('Debian');
INSERT INTO projects (id, name, homepage, backend, ecosystem_name, version_url, insecure, releases_only,
                      error_counter, version_scheme, archived, latest_version, check_successful, last_check,
                      next_check, updated_on, created_on)
SELECT i, 'project' || i, 'https://p' || i || '.example.org/',
       CASE WHEN i % 2 = 0 THEN 'PyPI' ELSE 'GitHub' END,
       CASE WHEN i % 2 = 0 THEN 'pypi' ELSE 'https://p' || i || '.example.org/' END,
       CASE WHEN i % 2 = 0 THEN NULL ELSE 'owner/project' || i END, false, false, i % 3,
       CASE WHEN i % 5 = 0 THEN 'Semantic' ELSE NULL END, i % 97 = 0, '1.' || ({versions} - 1), true,
       now() - interval '1 hour', now() + (i % 3600) * interval '1 second', now(), now() - i * interval '1 minute'
FROM generate_series(1, {projects}) AS i;
SELECT setval('projects_id_seq', {projects});
INSERT INTO projects_versions (project_id, version, created_on)
SELECT p, '1.' || v, now() - (p + v) * interval '1 minute'
FROM generate_series(1, {projects}) AS p, generate_series(0, {versions} - 1) AS v;
INSERT INTO packages (distro_name, project_id, package_name)
SELECT CASE WHEN i % 2 = 0 THEN 'Fedora' ELSE 'Debian' END, i, 'package' || i
FROM generate_series(1, {projects}) AS i;
INSERT INTO projects_flags (project_id, reason, "user", state, created_on, updated_on)
SELECT i, 'reason ' || i, 'someone', CASE WHEN i % 200 = 0 THEN 'closed' ELSE 'open' END, now(), now()
FROM generate_series(100, {projects}, 100) AS i;
INSERT INTO users (id, email, username, active, admin)
SELECT md5('user' || i)::uuid, 'user' || i || '@example.org', 'user' || i, true, i = 1
FROM generate_series(1, 1000) AS i;
INSERT INTO tokens (token, created, user_id, description)
SELECT substr(md5('t' || i) || md5('u' || i), 1, 40), now(), md5('user' || i)::uuid, 'bench'
FROM generate_series(1, 1000) AS i;
ANALYZE;
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--projects", type=int, default=100_000)
    parser.add_argument("--versions", type=int, default=10, help="versions per project (default 10)")
    parser.add_argument("--batch-size", type=int, default=1000)
    args = parser.parse_args()

    import psycopg2

    from tests.servers.postgres import PostgresServer

    with PostgresServer() as server, tempfile.TemporaryDirectory(prefix="anitrack-import-bench-") as tmp:
        source = server.create_database("anitya_bench")
        target = server.create_database("anitrack_bench")
        started = time.monotonic()
        with psycopg2.connect(source) as conn, conn.cursor() as cur:
            cur.execute(ANITYA_SCHEMA)
            cur.execute(FILL.format(projects=args.projects, versions=args.versions))
        print(f"Anitya database: {args.projects:,} projects, {args.projects * args.versions:,} versions, "
              f"{args.projects:,} packages, made in {time.monotonic() - started:.1f} s")
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANITRACK_") or k == "ANITRACK_PG_BIN"}
        env.update(ANITRACK_DATABASE_URL=target, ANITRACK_DATA_DIR=str(Path(tmp)))
        anitrack = [sys.executable, "-m", "anitrack_core.cli"]
        subprocess.run([*anitrack, "db", "upgrade"], env=env, check=True, stdout=subprocess.DEVNULL)
        started = time.monotonic()
        done = subprocess.run([*anitrack, "import", "anitya-db", source, "--batch-size", str(args.batch_size)],
                              env=env, capture_output=True, text=True)
        seconds = time.monotonic() - started
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        print("\n".join(done.stdout.splitlines()[:10]))
        print(f"import: {seconds:.1f} s ({args.projects / seconds:,.0f} projects/s, "
              f"{args.projects * args.versions / seconds:,.0f} versions/s); peak memory {peak_mib:.0f} MiB")
        started = time.monotonic()
        again = subprocess.run([*anitrack, "import", "anitya-db", source, "--quiet"], env=env, capture_output=True,
                               text=True)
        print(f"second run (nothing to change): {time.monotonic() - started:.1f} s, exit {again.returncode}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout: tests/servers
    sys.exit(main())
