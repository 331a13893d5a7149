"""Check-engine benchmark: `anitrack check --all` over 10,000 `custom` projects on a loopback upstream.

    apt-get update && apt-get install -y nginx-light      # the fake upstream (else a slow Python one)
    /work/venv/bin/python bench/checks.py [--projects 10000] [--processes N] [--concurrency 8,32,64]

It prints figures against the targets of the performance issue; it is not a
test.  What it does (details in bench/README.md, section "Check engine"):

1. writes one HTML page per project (five tarball links each) into a temporary
   directory and serves it with nginx on 127.0.0.1 (bench/upstream.py);
2. seeds a fresh SQLite file with the current schema and N projects on the
   ``custom`` backend, all due, whose version_url is their page;
3. times a bare keep-alive ``requests`` loop over the same URLs (one thread,
   one Session, no parsing, no database): plain GETs, then with If-None-Match;
4. for each concurrency setting, on a fresh copy of the seeded file: runs
   ``anitrack check --all`` as a subprocess twice (pass 1: everything new;
   pass 2: everything answers 304), measuring wall time, CPU and peak RSS, and
   verifies the stored versions and the statuses nginx answered;
5. prints a table, and removes the temporary directory and stops nginx.

``--processes N`` (N > 1) emulates N engine processes, since the CLI has no
such option: the project ids are split into N blocks and N ``anitrack check
--project ID ...`` processes run at once on the same file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import upstream as fake  # noqa: E402  (bench/upstream.py)

VENV_BIN = Path(sys.executable).parent
CHUNK = 500
TARGETS = {"new": 500.0, "304": 1000.0}
RSS_TARGET_MB = 250.0
#: stderr lines not worth repeating (a deliberately broken test plugin installed in the venv)
_NOISE = re.compile(r"^plugin \S+ \(\S+\) not loaded: import failed")


# ---- seeding ----


def seed(path: Path, up: fake.Upstream, projects: int) -> float:
    """Create the SQLite file at *path* with *projects* due `custom` projects; returns the seconds taken."""
    from anitrack_core.db.database import open_database
    from anitrack_core.db.migrate import upgrade
    from anitrack_core.db.models import Project

    started = time.perf_counter()
    db = open_database(f"sqlite:///{path}")
    upgrade(db)
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    rows = []
    for n in range(1, projects + 1):
        name, homepage = fake.project_name(n), f"https://proj{n}.example/"
        rows.append({
            "id": n, "name": name, "name_key": name.casefold(), "homepage": homepage, "backend": "custom",
            "ecosystem_name": homepage, "ecosystem_key": homepage.casefold(), "in_ecosystem": False,
            "version_url": up.url(n), "insecure": False, "releases_only": False, "error_counter": 0,
            "archived": False, "created_on": now, "updated_on": now, "next_check": now,
        })
    with db.connection_context():
        with db.atomic():
            for start in range(0, len(rows), CHUNK):
                Project.insert_many(rows[start:start + CHUNK]).execute()
        db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close_all() if hasattr(db, "close_all") else db.close()
    return time.perf_counter() - started


def db_state(path: Path) -> dict[str, object]:
    """What the checks left in the file (read with the stdlib driver)."""
    con = sqlite3.connect(path)
    try:
        one = lambda sql: con.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "versions": one("SELECT COUNT(*) FROM project_version"),
            "projects_with_5": one("SELECT COUNT(*) FROM (SELECT project_id FROM project_version "
                                   "GROUP BY project_id HAVING COUNT(*) = 5)"),
            "successful": one("SELECT COUNT(*) FROM project WHERE check_successful = 1"),
            "failed": one("SELECT COUNT(*) FROM project WHERE check_successful = 0"),
            "with_etag": one("SELECT COUNT(*) FROM project WHERE http_etag IS NOT NULL"),
            "latest_1_4": one("SELECT COUNT(*) FROM project WHERE latest_version = '1.4'"),
            "logs": dict(con.execute("SELECT COALESCE(logs, '(null)'), COUNT(*) FROM project GROUP BY 1")),
            "runs": one("SELECT COUNT(*) FROM run"),
        }
    finally:
        con.close()


# ---- the bare loop ----


def bare_loop(urls: list[str], etags: dict[str, str] | None = None) -> tuple[float, dict[str, str], Counter[int]]:
    """GET every URL once on one keep-alive Session; with *etags*, conditionally. (seconds, etags, statuses)."""
    import requests

    session = requests.Session()
    session.trust_env = False
    seen: dict[str, str] = {}
    statuses: Counter[int] = Counter()
    started = time.perf_counter()
    if etags is None:
        for url in urls:
            response = session.get(url)
            response.content  # noqa: B018 - read the body, nothing more
            statuses[response.status_code] += 1
            seen[url] = response.headers.get("ETag", "")
    else:
        for url in urls:
            response = session.get(url, headers={"If-None-Match": etags[url]})
            response.content  # noqa: B018
            statuses[response.status_code] += 1
    seconds = time.perf_counter() - started
    session.close()
    return seconds, seen, statuses


# ---- running the engine ----


@dataclass
class PassResult:
    label: str
    wall_s: float
    engine_s: float  # the largest "in X s" of the summary lines (the pass itself, without start-up)
    cpu_s: float
    peak_rss_mb: float  # the sum of the processes' peaks
    returncode: int
    summaries: list[str] = field(default_factory=list)
    stderr_tail: str = ""
    statuses: dict[str, int] = field(default_factory=dict)
    db: dict[str, object] = field(default_factory=dict)
    upstream_cpu_s: float = 0.0


def engine_env(db_path: Path, data_dir: Path, settings: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANITRACK_")}
    env.update({
        "ANITRACK_DATABASE_URL": f"sqlite:///{db_path}",
        "ANITRACK_DATA_DIR": str(data_dir),
        "ANITRACK_ALLOW_PRIVATE_UPSTREAMS": "1",  # the upstream is on loopback
        **settings,
    })
    return env


def run_engine(label: str, commands: list[list[str]], env: dict[str, str], workdir: Path,
               timeout: float) -> PassResult:
    """Run the *commands* at once; wall time until the last ends, peak RSS and CPU from wait4."""
    procs, outputs, results = [], [], {}
    started = time.perf_counter()
    for i, command in enumerate(commands):
        out, err = open(workdir / f"{label}-{i}.out", "w+"), open(workdir / f"{label}-{i}.err", "w+")
        outputs.append((out, err))
        procs.append(subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err))

    def reap(proc: subprocess.Popen[bytes]) -> None:
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        results[proc.pid] = (time.perf_counter(), usage)

    threads = [threading.Thread(target=reap, args=(proc,), daemon=True) for proc in procs]
    for thread in threads:
        thread.start()
    for proc, thread in zip(procs, threads):
        thread.join(max(0.0, started + timeout - time.perf_counter()))
        if thread.is_alive():  # bounded: a stuck pass is killed (only our own child, by pid)
            print(f"  {label}: still running after {timeout:g} s, killing pid {proc.pid}", file=sys.stderr)
            proc.kill()
            thread.join(10)
    ended = max((t for t, _ in results.values()), default=time.perf_counter())
    summaries, tails, engine_s = [], [], 0.0
    for out, err in outputs:
        out.seek(0)
        err.seek(0)
        text = out.read().strip()
        summaries.append(text.splitlines()[-1] if text else "(no output)")
        tails.append("\n".join(line for line in err.read().splitlines()
                                if not _NOISE.search(line))[-2000:])
        out.close()
        err.close()
        if " in " in summaries[-1] and summaries[-1].endswith(" s"):
            try:
                engine_s = max(engine_s, float(summaries[-1].rsplit(" in ", 1)[1][:-2]))
            except ValueError:
                pass
    usages = [u for _, u in results.values()]
    return PassResult(
        label=label, wall_s=ended - started, engine_s=engine_s,
        cpu_s=sum(u.ru_utime + u.ru_stime for u in usages),
        peak_rss_mb=sum(u.ru_maxrss for u in usages) / 1024,  # ru_maxrss is in KiB on Linux
        returncode=max((abs(p.returncode or 0) for p in procs), default=0),
        summaries=summaries, stderr_tail="".join(t for t in tails if t.strip()),
    )


def commands_for(projects: int, processes: int, anitrack: str) -> list[list[str]]:
    if processes <= 1:
        return [[anitrack, "check", "--all"]]
    ids = list(range(1, projects + 1))
    size = -(-len(ids) // processes)
    return [[anitrack, "check", *[f"--project={i}" for i in ids[start:start + size]]]
            for start in range(0, len(ids), size)]


# ---- reporting ----


def mb(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f} MB"


def verdict(ok: bool | None) -> str:
    return "info" if ok is None else ("PASS" if ok else "**FAIL**")


def print_table(rows: list[dict[str, str]]) -> None:
    heads = list(rows[0])
    widths = [max(len(h), *(len(r[h]) for r in rows)) for h in heads]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    print(line(heads))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(line([row[h] for h in heads]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=10_000)
    parser.add_argument("--processes", type=int, default=1,
                        help="engine processes at once (emulated: N `anitrack check --project ...` processes)")
    parser.add_argument("--concurrency", default="default",
                        help="comma-separated ANITRACK_CHECK_CONCURRENCY values to run, each on a fresh "
                             "database; 'default' leaves the setting alone (default: %(default)s)")
    parser.add_argument("--per-host", type=int, default=None,
                        help="ANITRACK_CHECK_PER_HOST for the engine (default: the engine's own, 4)")
    parser.add_argument("--hosts", type=int, default=1,
                        help="spread the projects over this many loopback addresses 127.0.0.1..N (default 1)")
    parser.add_argument("--server", choices=("auto", "nginx", "python"), default="auto")
    parser.add_argument("--no-bare", action="store_true", help="skip the bare requests loops")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a pass may take before it is killed")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, databases)")
    args = parser.parse_args(argv)

    anitrack = str(VENV_BIN / "anitrack")
    if not os.access(anitrack, os.X_OK):
        raise SystemExit(f"{anitrack} not found: run with the project's venv python")
    settings_runs = [s.strip() for s in args.concurrency.split(",") if s.strip()]

    tmp = Path(tempfile.mkdtemp(prefix="anitrack-bench-checks-"))
    tmp.chmod(0o755)  # nginx's worker (user nobody) reads the site
    report: dict[str, object] = {"projects": args.projects, "processes": args.processes, "runs": []}
    rows: list[dict[str, str]] = []
    try:
        site = tmp / "www"
        t0 = time.perf_counter()
        fake.write_site(site, args.projects)
        print(f"site: {args.projects} pages in {time.perf_counter() - t0:.1f} s ({site})", file=sys.stderr)
        with fake.Upstream(site, tmp, server=args.server, hosts=args.hosts) as up:
            note = "" if up.kind == "nginx" else "  (nginx not installed: the Python server is the bottleneck)"
            print(f"upstream: {up.version} on {', '.join(up.addresses)} port {up.port}{note}", file=sys.stderr)
            report["upstream"] = up.version
            urls = [up.url(n) for n in range(1, args.projects + 1)]
            template = tmp / "template.db"
            seconds = seed(template, up, args.projects)
            print(f"seeded {args.projects} projects in {seconds:.1f} s", file=sys.stderr)

            bare = {}
            if not args.no_bare:
                bare_loop(urls[:200])  # warm-up: connection, page cache
                up.statuses()
                secs, etags, statuses = bare_loop(urls)
                bare["200"] = secs
                print(f"bare loop, GET: {secs:.2f} s, {len(urls) / secs:.0f} req/s {dict(statuses)}", file=sys.stderr)
                secs, _, statuses = bare_loop(urls, etags)
                bare["304"] = secs
                print(f"bare loop, If-None-Match: {secs:.2f} s, {len(urls) / secs:.0f} req/s {dict(statuses)}",
                      file=sys.stderr)
                up.statuses()
                for name, key in (("bare requests loop, GET (200)", "200"),
                                  ("bare requests loop, If-None-Match (304)", "304")):
                    rows.append({"scenario": name, "settings": "1 thread", "seconds": f"{bare[key]:.2f}",
                                 "checks/s": f"{args.projects / bare[key]:,.0f}", "engine-only/s": "–",
                                 "× bare": "1.00", "CPU": "–", "peak RSS": "–", "target": "–",
                                 "result": "info"})
                report["bare"] = {k: {"seconds": v, "rate": args.projects / v} for k, v in bare.items()}

            for setting in settings_runs:
                env_settings = {}
                if setting != "default":
                    env_settings["ANITRACK_CHECK_CONCURRENCY"] = str(int(setting))
                if args.per_host is not None:
                    env_settings["ANITRACK_CHECK_PER_HOST"] = str(args.per_host)
                described = ", ".join(f"{k.removeprefix('ANITRACK_').lower()}={v}" for k, v in env_settings.items())
                described = (described or "defaults") + (f", {args.processes} processes" if args.processes > 1 else "")
                if args.hosts > 1:
                    described += f", {args.hosts} hosts"
                db_path = tmp / f"bench-{setting}.db"
                shutil.copyfile(template, db_path)
                data_dir = tmp / "data"
                data_dir.mkdir(exist_ok=True)
                env = engine_env(db_path, data_dir, env_settings)
                commands = commands_for(args.projects, args.processes, anitrack)
                run_report = {"settings": described, "env": env_settings, "passes": []}
                for label, key in (("pass 1: all new", "new"), ("pass 2: all 304", "304")):
                    up.statuses()
                    cpu_before = up.cpu_seconds()
                    result = run_engine(f"{setting}-{key}", commands, env, tmp, args.timeout)
                    result.upstream_cpu_s = up.cpu_seconds() - cpu_before
                    result.statuses = dict(up.statuses())
                    result.db = db_state(db_path)
                    problems = check_pass(key, result, args.projects)
                    rate = args.projects / result.wall_s
                    ok = rate >= TARGETS[key] and result.peak_rss_mb < RSS_TARGET_MB and not problems
                    print(f"{described} / {label}: {result.wall_s:.2f} s wall ({rate:.0f}/s), engine "
                          f"{result.engine_s:.1f} s, CPU {result.cpu_s:.1f} s, peak RSS {result.peak_rss_mb:.0f} MB, "
                          f"upstream CPU {result.upstream_cpu_s:.1f} s; statuses {result.statuses}; "
                          f"{' | '.join(sorted(set(result.summaries)))[:300]}", file=sys.stderr)
                    for problem in problems:
                        print(f"  MISMATCH: {problem}", file=sys.stderr)
                    if result.stderr_tail.strip():
                        print("  stderr: " + result.stderr_tail.strip()[-600:], file=sys.stderr)
                    bare_key = "200" if key == "new" else "304"
                    ratio = f"{bare[bare_key] / result.wall_s:.2f}" if bare_key in bare else "–"
                    engine_rate = f"{args.projects / result.engine_s:,.0f}" if result.engine_s else "–"
                    rows.append({
                        "scenario": f"anitrack {label}", "settings": described, "seconds": f"{result.wall_s:.2f}",
                        "checks/s": f"{rate:,.0f}", "engine-only/s": engine_rate, "× bare": ratio,
                        "CPU": f"{100 * result.cpu_s / result.wall_s:.0f} %",
                        "peak RSS": mb(result.peak_rss_mb),
                        "target": f"≥{TARGETS[key]:,.0f}/s, <{RSS_TARGET_MB:.0f} MB",
                        "result": verdict(ok) + (" (mismatch)" if problems else ""),
                    })
                    run_report["passes"].append({**asdict(result), "rate": rate, "problems": problems, "ok": ok})
                report["runs"].append(run_report)
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    print()
    print(f"{args.projects} projects on the `custom` backend, SQLite, {os.cpu_count()} CPUs, "
          f"upstream {report.get('upstream')}")
    print_table(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=str))
    return 0


def check_pass(key: str, result: PassResult, projects: int) -> list[str]:
    """What differs from the expected outcome of pass *key*."""
    problems = []
    state = result.db
    if result.returncode != 0:
        problems.append(f"exit code {result.returncode}")
    if state["versions"] != projects * fake.VERSIONS_PER_PROJECT:
        problems.append(f"{state['versions']} versions stored, expected {projects * fake.VERSIONS_PER_PROJECT}")
    if state["projects_with_5"] != projects:
        problems.append(f"{state['projects_with_5']} projects have 5 versions, expected {projects}")
    if state["successful"] != projects:
        problems.append(f"{state['successful']} projects checked successfully, expected {projects} "
                        f"(logs: {state['logs']})")
    if state["latest_1_4"] != projects:
        problems.append(f"{state['latest_1_4']} projects have latest_version 1.4, expected {projects}")
    expected_status = "200" if key == "new" else "304"
    if result.statuses.get(expected_status, 0) != projects or sum(result.statuses.values()) != projects:
        problems.append(f"upstream answered {result.statuses}, expected {{'{expected_status}': {projects}}}")
    return problems


if __name__ == "__main__":
    sys.exit(main())
