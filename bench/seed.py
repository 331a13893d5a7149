"""Build a fresh SQLite database full of realistic projects, fast.

    /work/venv/bin/python bench/seed.py /tmp/bench.db [--projects 10000] [--seed 1]

The schema is the current one (``open_database`` + ``migrate.upgrade``); the
rows go in with peewee ``insert_many`` in chunks inside one transaction per
table, with explicit ids so nothing has to be read back.  Each project gets
8-12 versions (some pre-releases such as ``2.0rc1`` or ``3.0.0-beta.1``, some
with a ``v`` prefix) and one package in the distribution "Fedora".

Backends are mixed as on a real instance: "PyPI" projects live in the
``pypi`` ecosystem (``in_ecosystem`` true, names unique in it); "GitHub" and
"custom" projects are outside any ecosystem (``ecosystem_name`` = homepage).
The output is deterministic for a given ``--seed``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

CHUNK = 500  # rows per INSERT: ~20 columns x 500 stays under SQLite's variable limit

_WORDS = (
    "aero arrow atlas aurora axis beacon birch blaze bolt breeze brook cairn canopy canyon cedar cinder "
    "cipher citadel cobalt comet coral crane crest crystal cypress dawn delta drift dune echo ember falcon "
    "fern flint forge fox frost galaxy garnet glacier grove harbor hawk helix horizon iris ivy jade jasper "
    "kestrel lagoon lark lattice ledger lemon lotus lumen lynx magnet maple marble meadow mesa meteor mint "
    "mirage moss nebula nectar nimbus nova oak onyx orbit orchid otter owl pebble pepper pine pixel plume "
    "polar prism pulse quartz quill radar raven reef ridge river rocket sage salt sapphire scarab sequoia "
    "shadow shard sierra signal silk slate sonar spark sphinx spruce stone storm summit sun swift tango "
    "tempest thistle thunder tide timber topaz torch tundra umber vapor velvet vertex violet vortex willow "
    "wren yarrow zephyr zinc"
).split()
_TECH = (
    "async auth cache cli config crypt data db diff dns event feed fs graph grid http io json jwt kit lint "
    "log mail map math mock net orm parse path pdf pool proto queue rpc schema sdk shell sql sync task "
    "template test text time toml trace url util vector web xml yaml zip"
).split()
_OWNERS = (
    "acme apache canonical cloudflare coreos fedora-infra gnome google hashicorp kde mozilla netflix "
    "openstack pallets psf python redhat rust-lang sphinx-doc torvalds twisted uber vmware"
).split()
_DISTRO = "Fedora"


def _names(rng: random.Random, count: int) -> list[str]:
    """*count* distinct, realistic-looking project names."""
    seen: set[str] = set()
    names: list[str] = []
    patterns = (
        lambda: f"{rng.choice(_WORDS)}",
        lambda: f"py{rng.choice(_TECH)}",
        lambda: f"{rng.choice(_WORDS)}-{rng.choice(_TECH)}",
        lambda: f"{rng.choice(_TECH)}{rng.choice(_WORDS)}",
        lambda: f"lib{rng.choice(_WORDS)}",
        lambda: f"{rng.choice(_WORDS)}_{rng.choice(_TECH)}",
        lambda: f"{rng.choice(_WORDS).capitalize()}{rng.choice(_TECH).capitalize()}",
        lambda: f"{rng.choice(_TECH)}-{rng.choice(_WORDS)}-{rng.choice(('cli', 'utils', 'core', 'tools'))}",
    )
    while len(names) < count:
        name = rng.choice(patterns)()
        if name.casefold() in seen:
            name = f"{name}{rng.randint(2, 99)}"
            if name.casefold() in seen:
                continue
        seen.add(name.casefold())
        names.append(name)
    return names


def _versions(rng: random.Random, count: int, *, v_prefix: bool, python: bool) -> tuple[list[str], str]:
    """(raw version strings oldest first, the newest stable one without its prefix)."""
    major, minor, patch = rng.randint(0, 3), rng.randint(0, 9), 0
    three_parts = rng.random() < 0.7
    raws: list[str] = []
    latest_stable = ""

    def fmt(ma: int, mi: int, pa: int) -> str:
        return f"{ma}.{mi}.{pa}" if three_parts or pa else f"{ma}.{mi}"

    while len(raws) < count:
        stable = fmt(major, minor, patch)
        raws.append(("v" if v_prefix else "") + stable)
        latest_stable = stable
        step = rng.random()
        if step < 0.6:
            patch += 1
        else:
            if step < 0.9:
                minor, patch = minor + 1, 0
            else:
                major, minor, patch = major + 1, 0, 0
            if rng.random() < 0.35 and len(raws) < count - 1:  # pre-releases before the bump
                nxt = fmt(major, minor, 0)
                # PEP 440 spellings on PyPI, rpm/semver-style keywords elsewhere
                style = rng.choice(("rc", "a", "b") if python else ("rc", "-rc", "-beta.", "-alpha."))
                for n in range(1, rng.randint(1, 2) + 1):
                    if len(raws) < count - 1:
                        raws.append(("v" if v_prefix else "") + f"{nxt}{style}{n}")
    return raws, latest_stable


def build_rows(projects: int, seed: int = 1) -> tuple[list[dict], list[dict], list[dict]]:
    """(project rows, version rows, package rows) for the Fedora distro with id 1."""
    rng = random.Random(seed)
    names = _names(rng, projects)
    base = datetime(2016, 1, 1)
    project_rows, version_rows, package_rows = [], [], []
    version_id = 0
    packages_seen: set[str] = set()
    for pid, name in enumerate(names, start=1):
        kind = rng.random()
        created = base + timedelta(seconds=rng.randint(0, 8 * 365 * 86400))
        version_scheme = version_prefix = pre_filter = None
        v_prefix = False
        if kind < 0.5:
            backend, homepage = "PyPI", f"https://pypi.org/project/{name}/"
            ecosystem, in_ecosystem, version_url = "pypi", True, None
            if rng.random() < 0.3:
                version_scheme = "Python (PEP 440)"
            package = f"python-{name.casefold().replace('_', '-')}"
        elif kind < 0.85:
            owner = rng.choice(_OWNERS)
            backend, homepage = "GitHub", f"https://github.com/{owner}/{name}"
            ecosystem, in_ecosystem, version_url = homepage, False, f"{owner}/{name}"
            v_prefix = rng.random() < 0.5
            if rng.random() < 0.1:
                version_scheme = "Semantic"
            package = name.casefold()
        else:
            backend, homepage = "custom", f"https://{name.casefold().replace('_', '-')}.example.org/"
            ecosystem, in_ecosystem, version_url = homepage, False, f"{homepage}download/"
            if rng.random() < 0.2:
                version_prefix = f"{name.casefold()}-"
            if rng.random() < 0.1:
                pre_filter = "rc;beta"
            package = name.casefold()
        if package in packages_seen:  # "foo_bar" and "foo-bar" map to one Fedora name
            package = f"{package}-{pid}"
        packages_seen.add(package)
        raws, latest = _versions(rng, rng.randint(8, 12), v_prefix=v_prefix, python=backend == "PyPI")
        if version_prefix:
            raws = [version_prefix + r for r in raws]
        updated = created + timedelta(days=rng.randint(0, 900))
        project_rows.append({
            "id": pid, "name": name, "name_key": name.casefold(), "homepage": homepage, "backend": backend,
            "ecosystem_name": ecosystem, "ecosystem_key": ecosystem.casefold(), "in_ecosystem": in_ecosystem,
            "version_url": version_url, "regex": None, "version_prefix": version_prefix,
            "version_scheme": version_scheme, "version_pattern": None, "pre_release_filter": pre_filter,
            "version_filter": None, "insecure": False, "releases_only": False, "error_counter": 0,
            "latest_version": latest, "latest_version_cursor": None, "logs": "Version retrieved correctly",
            "check_successful": True, "archived": False, "created_on": created, "updated_on": updated,
            "last_check": updated, "next_check": updated + timedelta(hours=1),
        })
        step = (updated - created) / max(len(raws), 1)
        for i, raw in enumerate(raws):
            version_id += 1
            version_rows.append({
                "id": version_id, "project": pid, "version": raw, "created_on": created + step * i,
                "commit_url": (f"{homepage}/releases/tag/{raw}" if backend == "GitHub" else None),
            })
        package_rows.append({"id": pid, "distro": 1, "project": pid, "package_name": package,
                             "package_key": package.casefold(), "created_on": created})
    return project_rows, version_rows, package_rows


def seed(path: str | Path, projects: int = 10_000, *, seed: int = 1, analyze: bool = False,
         quiet: bool = False) -> dict[str, float]:
    """Create the database file at *path* (must not exist) and fill it; returns counts and timings."""
    from anitrack_core.db.database import open_database
    from anitrack_core.db.migrate import upgrade
    from anitrack_core.db.models import Distro, Package, Project, ProjectVersion

    path = Path(path).resolve()
    if path.exists():
        raise SystemExit(f"seed: {path} exists; give a new path")
    t0 = time.perf_counter()
    db = open_database(f"sqlite:///{path}")
    upgrade(db)
    t1 = time.perf_counter()
    project_rows, version_rows, package_rows = build_rows(projects, seed)
    t2 = time.perf_counter()
    with db.connection_context():
        with db.atomic():
            Distro.insert(id=1, name=_DISTRO, name_key=_DISTRO.casefold(), created_on=datetime(2015, 1, 1)).execute()
        for model, rows in ((Project, project_rows), (ProjectVersion, version_rows), (Package, package_rows)):
            with db.atomic():
                for start in range(0, len(rows), CHUNK):
                    model.insert_many(rows[start:start + CHUNK]).execute()
        # what `anitrack db upgrade` does after a migration: compute every project's stored listing
        from anitrack_core.db.listings import refresh_missing
        from anitrack_core.listing import SchemeCache
        from anitrack_core.plugins import load_plugins

        refresh_missing(SchemeCache(load_plugins(autoload=False)))
        if analyze:  # anitrack itself never runs ANALYZE, so by default neither do we
            db.execute_sql("ANALYZE")
        db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close_all() if hasattr(db, "close_all") else db.close()
    t3 = time.perf_counter()
    stats = {"projects": len(project_rows), "versions": len(version_rows), "packages": len(package_rows),
             "schema_s": t1 - t0, "generate_s": t2 - t1, "insert_s": t3 - t2, "total_s": t3 - t0}
    if not quiet:
        print(f"seeded {path}: {stats['projects']} projects, {stats['versions']} versions, "
              f"{stats['packages']} packages in {stats['total_s']:.2f} s (schema {stats['schema_s']:.2f} s, "
              f"generate {stats['generate_s']:.2f} s, insert {stats['insert_s']:.2f} s)", file=sys.stderr)
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="the SQLite file to create (must not exist)")
    parser.add_argument("--projects", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1, help="random seed (same seed, same data)")
    parser.add_argument("--analyze", action="store_true", help="run SQLite ANALYZE after loading")
    args = parser.parse_args(argv)
    seed(args.path, args.projects, seed=args.seed, analyze=args.analyze)
    return 0


if __name__ == "__main__":
    sys.exit(main())
