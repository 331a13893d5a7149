"""Where the server's time goes: py-spy samples of ``anitrack serve`` under wrk load, by category.

    pip install --target /tmp/pyspy py-spy          # NOT into the project's venv
    /work/venv/bin/python bench/profile.py --py-spy /tmp/pyspy/bin/py-spy [--only versions]

Same set-up as bench/api.py (seeded SQLite database in a temporary directory,
``anitrack serve --no-scheduler`` on a loopback port, wrk with 8 connections);
for each scenario py-spy samples the server (by default only the thread
holding the GIL; Python frames only, no ``--native``: native unwinding slows
the server too much to be representative) while wrk drives it, and the samples are put in categories:
waitress, bottle, query-string parsing, each SQL query split into SQLite
itself and peewee's Python around it, version listing, view building and
JSON encoding.  Time inside SQLite (a C call made without the GIL) is
attributed to the peewee line that makes the call.

The figures under a profiler are lower than bench/api.py's; only the
proportions matter.  ``--raw DIR`` keeps py-spy's collapsed stacks (one
file per scenario) for a flame graph or a closer look.
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api  # noqa: E402  (bench/api.py)

# innermost Python frames that are a call into SQLite (the C library runs without the GIL)
_SQLITE_CALL = re.compile(r"^(CursorWrapper\.iterate \(peewee\.py:\d+\)|.*_execute_cursor \(peewee\.py:\d+\)|"
                          r".*\.(fetchone|fetchall|execute) \(.*sqlite.*\))$")

#: (category, frame pattern): the innermost frame of a sample matching a pattern names its category
RULES: list[tuple[str, re.Pattern[str]]] = [
    ("JSON encoding", re.compile(r"json/encoder\.py|_dumps \(anitrack_web/app\.py")),
    ("versions query", re.compile(r"raw_versions \(anitrack_web/queries\.py")),
    ("packages query", re.compile(r"packages_of \(anitrack_web/queries\.py")),
    ("COUNT query", re.compile(r"SelectBase\.count \(peewee\.py|\.count \(peewee\.py")),
    ("page query", re.compile(r"page_of \(anitrack_web/queries\.py")),
    ("project-by-id query", re.compile(r"project_by_id \(anitrack_web/queries\.py")),
    ("version listing (filter, sort, display)",
     re.compile(r"anitrack_core/versions/|anitrack_core/listing\.py|anitrack_core/resolve\.py")),
    ("query-string parsing", re.compile(r"anitrack_web/params\.py|_page_args \(anitrack_web")),
    ("view dicts (epoch, base)", re.compile(r"anitrack_web/views\.py")),
    ("connection pool (per-request hooks)", re.compile(r"store_hooks\.py|playhouse/pool\.py")),
    ("route body (other)", re.compile(r"anitrack_web/api_v2\.py")),
    ("bottle (routing, plugins, response)", re.compile(r"bottle\.py")),
    ("waitress worker (parse, write)", re.compile(r"waitress/")),
]
SPLIT_SQL = {"versions query", "packages query", "COUNT query", "page query", "project-by-id query"}


def categorize(stack: str) -> str:
    frames = stack.split(";")
    if not any("handler_thread" in f for f in frames):
        return "waitress main thread (asyncore I/O loop)" if any("waitress/" in f for f in frames) else "other"
    for frame in reversed(frames):
        for name, pattern in RULES:
            if pattern.search(frame):
                if name in SPLIT_SQL:
                    inner = frames[-1]
                    return f"{name}: " + ("SQLite (C)" if _SQLITE_CALL.match(inner) else "peewee (Python)")
                return name
    return "other"


def breakdown(raw_file: Path) -> collections.Counter[str]:
    counts: collections.Counter[str] = collections.Counter()
    for line in raw_file.read_text(errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if stack and n.isdigit():
            counts[categorize(stack)] += int(n)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="py-spy breakdown of the server under load")
    parser.add_argument("--py-spy", required=True, help="the py-spy executable (installed outside the venv)")
    parser.add_argument("--projects", type=int, default=10_000)
    parser.add_argument("--duration", type=float, default=10, help="sampled seconds per scenario")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--rate", type=int, default=100, help="py-spy samples per second")
    parser.add_argument("--only", metavar="TEXT", help="profile only scenarios whose name contains TEXT")
    parser.add_argument("--db", type=Path, help="an already seeded SQLite file")
    parser.add_argument("--mode", choices=("gil", "threads"), default="gil",
                        help="gil (default): sample only the thread holding the GIL (py-spy --gil), i.e. the "
                             "Python work that serialises the server; SQLite running without the GIL is not seen. "
                             "threads: every non-idle thread; a thread waiting to take the GIL back after a "
                             "SQLite or socket call is NOT idle to py-spy, so those lines are inflated")
    parser.add_argument("--raw", type=Path, help="keep py-spy's collapsed stacks in this directory")
    args = parser.parse_args(argv)
    wrk = shutil.which("wrk")
    if not wrk:
        parser.error("wrk is not installed (apt-get install wrk)")
    pyspy_env = dict(api.os.environ)
    pyspy_dir = Path(args.py_spy).resolve().parent.parent  # pip --target DIR puts it in DIR/bin
    pyspy_env["PYTHONPATH"] = str(pyspy_dir)

    scs = api.scenarios(args.projects)
    if args.only:
        scs = [s for s in scs if args.only.casefold() in s.name.casefold()]
    workdir = Path(tempfile.mkdtemp(prefix="anitrack-profile-"))
    server = None
    try:
        if args.db:
            db_path = args.db.resolve()
        else:
            from seed import seed

            db_path = workdir / "bench.db"
            seed(db_path, args.projects, quiet=True)
        (workdir / "data").mkdir()
        server = api.Server(api.server_env(db_path, workdir / "data"), api.free_port(), workdir / "server.log")
        server.wait_ready()
        for sc in scs:
            api.run_wrk(wrk, server.base, sc, 2, args.connections, workdir, server)  # warm-up
            raw = (args.raw or workdir) / f"{re.sub(r'[^a-z0-9]+', '-', sc.name.lower()).strip('-')}.txt"
            raw.parent.mkdir(parents=True, exist_ok=True)
            spy = subprocess.Popen([args.py_spy, "record", "--pid", str(server.proc.pid), "--rate", str(args.rate),
                                    "--duration", str(round(args.duration)), "--format", "raw", "--nonblocking",
                                    *(["--gil"] if args.mode == "gil" else []), "-o", str(raw)], env=pyspy_env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
            time.sleep(0.3)
            res = api.run_wrk(wrk, server.base, sc, args.duration + 1, args.connections, workdir, server)
            _, err = spy.communicate(timeout=60)
            if not raw.exists():
                raise RuntimeError(f"py-spy wrote nothing: {err.strip()}")
            counts = breakdown(raw)
            total = sum(counts.values()) or 1
            print(f"\n== {sc.name}  ({sc.path}; {res.rps:,.0f} req/s under the profiler, "
                  f"server CPU {res.server_cpu_pct:.0f}%, {total} samples, mode {args.mode})")
            for name, n in counts.most_common():
                per_req = (n / args.rate) / (res.rps * args.duration) * 1000 if res.rps else float("nan")
                print(f"  {100 * n / total:5.1f}%  {per_req:6.2f} ms/req  {name}")
        print("\nms/req: sampled time per request in that category (samples / rate / requests)"
              + ("; GIL-holding time only." if args.mode == "gil" else
                 "; includes threads waiting to re-take the GIL (see --help)."))
        return 0
    except RuntimeError as exc:
        print(f"profile: error: {exc}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
