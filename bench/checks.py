"""Check-engine benchmark: `anitrack check --all` over 10,000 `custom` projects on a loopback upstream.

    apt-get update && apt-get install -y nginx-light      # the fake upstream (else a slower Python one)
    /work/venv/bin/python bench/checks.py [--projects 10000] [--processes default,1] [--concurrency 8,32,64]

It prints figures against the targets of the performance issue; it is not a
test.  What it does (details in bench/README.md, section "Check engine"):

1. writes one HTML page per project (five tarball links each) into a temporary
   directory and serves it with nginx on 127.0.0.1 (bench/upstream.py);
2. seeds a fresh SQLite file with the current schema and N projects on the
   ``custom`` backend, all due, whose version_url is their page;
3. times a bare keep-alive ``requests`` loop over the same URLs (one thread,
   one Session, no parsing, no database): plain GETs, then with If-None-Match,
   then plain GETs on a default Session (which reads proxies and .netrc);
4. for each combination of settings, on a fresh copy of the seeded file: runs
   ``anitrack check --all`` as a subprocess twice (pass 1: everything new;
   pass 2: everything answers 304), measuring wall time, CPU, the peak RSS of
   the process tree and the CPU the rest of the machine used meanwhile, and
   verifies the stored versions and the statuses nginx answered;
5. prints a table (and, with ``--py-spy``, where each process's time goes),
   stops nginx and removes the temporary directory.

``--processes`` and ``--concurrency`` set ANITRACK_CHECK_PROCESSES (worker
processes that fetch during a large pass) and ANITRACK_CHECK_CONCURRENCY
(checks in flight, split between them), ``--per-host`` ANITRACK_CHECK_PER_HOST;
``--hosts N`` spreads the projects over N loopback addresses (the per-host
limit applies per address); ``--shards N`` runs N independent ``anitrack check
--project ID ...`` commands at once on the same file, as a scheduler and an
operator's command would.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
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
REPO = Path(__file__).resolve().parent.parent
CHUNK = 500
TARGETS = {"new": 1200.0, "304": 2500.0}
RSS_TARGET_MB = 250.0
#: stderr lines not worth repeating (a deliberately broken test plugin installed in the venv)
_NOISE = re.compile(r"^plugin \S+ \(\S+\) not loaded: import failed")


# ---- the machine ----


def cpu_busy_seconds() -> float:
    """CPU seconds spent busy by the whole machine since boot (all CPUs, /proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def wait_for_quiet(limit: float, what: str) -> None:
    """Wait (at most *limit* seconds) until the rest of the machine uses under 20 % of a CPU for 2 s."""
    deadline = time.monotonic() + limit
    announced = False
    while True:
        before = cpu_busy_seconds() - own_cpu_seconds()
        time.sleep(2)
        load = (cpu_busy_seconds() - own_cpu_seconds() - before) / 2
        if load < 0.2:
            return
        if time.monotonic() >= deadline:
            print(f"  the machine is still busy ({100 * load:.0f} % of a CPU used by other processes); "
                  f"measuring {what} anyway", file=sys.stderr)
            return
        if not announced:
            print(f"  waiting for other processes to leave the CPUs ({100 * load:.0f} % of a CPU) "
                  f"before {what}...", file=sys.stderr)
            announced = True


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def code_version() -> str:
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return f"{head}{' + uncommitted changes' if dirty else ''}" if head else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


# ---- seeding ----


def seed(path: Path, up: fake.Upstream, projects: int, backend: str = "custom") -> float:
    """Create the SQLite file at *path* with *projects* due projects of *backend* (``custom``: their
    version_url is their page; ``PyPI``: in the pypi ecosystem, read from ``pypi.url``); returns the seconds taken."""
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
        ecosystem = "pypi" if backend == "PyPI" else homepage
        rows.append({
            "id": n, "name": name, "name_key": name.casefold(), "homepage": homepage, "backend": backend,
            "ecosystem_name": ecosystem, "ecosystem_key": ecosystem.casefold(), "in_ecosystem": backend == "PyPI",
            "version_url": up.url(n) if backend == "custom" else None, "insecure": False, "releases_only": False,
            "error_counter": 0, "archived": False, "created_on": now, "updated_on": now, "next_check": now,
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


def bare_loop(urls: list[str], etags: dict[str, str] | None = None, *,
              trust_env: bool = False) -> tuple[float, dict[str, str], Counter[int]]:
    """GET every URL once on one keep-alive Session; with *etags*, conditionally. (seconds, etags, statuses).

    The Session does not read the environment (proxies, .netrc), as anitrack's does not; with
    *trust_env* it does, as ``requests.Session()`` does by default, at a cost on every request.
    """
    import requests

    session = requests.Session()
    session.trust_env = trust_env
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
    processes: int  # how many processes there were (the engine's, its workers and helpers)
    max_tree_rss_mb: float  # the largest sum of their RSS at one moment (polled)
    rss_breakdown: str  # each process's peak, MB
    returncode: int
    summaries: list[str] = field(default_factory=list)
    stderr_tail: str = ""
    statuses: dict[str, int] = field(default_factory=dict)
    db: dict[str, object] = field(default_factory=dict)
    upstream_cpu_s: float = 0.0
    #: CPU seconds the rest of the machine used during the pass (not the engine, the upstream or this script)
    other_cpu_s: float = 0.0


def engine_env(db_path: Path, data_dir: Path, settings: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANITRACK_")}
    env.update({
        "ANITRACK_DATABASE_URL": f"sqlite:///{db_path}",
        "ANITRACK_DATA_DIR": str(data_dir),
        "ANITRACK_ALLOW_PRIVATE_UPSTREAMS": "1",  # the upstream is on loopback
        **settings,
    })
    return env


def _children(pid: int) -> list[int]:
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except OSError:
            pass
    return found


def _memory_kib(pid: int) -> tuple[int, int]:
    """(VmHWM, VmRSS) of *pid* in KiB, or (0, 0) once it is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0, 0
    values = {line.split(":")[0]: int(line.split()[1]) for line in text.splitlines()
              if line.startswith(("VmHWM:", "VmRSS:"))}
    return values.get("VmHWM", 0), values.get("VmRSS", 0)


class TreeMemory:
    """Polls the descendants of some processes: each one's peak (VmHWM) and the largest sum of their RSS."""

    def __init__(self, roots: list[int], interval: float = 0.05) -> None:
        self.roots, self.interval = roots, interval
        self.peaks: dict[int, int] = {}  # pid -> VmHWM KiB, last seen
        self.roles: dict[int, str] = {}  # pid -> what the process is
        self.max_total_kib = 0  # the largest sum of the RSS of the whole tree at one moment
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            todo, seen, total = list(self.roots), set(), 0
            while todo:
                pid = todo.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                hwm, rss = _memory_kib(pid)
                if hwm:
                    self.peaks[pid] = max(self.peaks.get(pid, 0), hwm)
                    if pid not in self.roles or self.roles[pid].startswith("engine"):
                        # read again until it is known: a spawned worker shows its parent's command until it execs
                        try:
                            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                        except OSError:
                            command = ""
                        self.roles[pid] = _role(command)
                total += rss
                todo += _children(pid)
            self.max_total_kib = max(self.max_total_kib, total)
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def run_engine(label: str, commands: list[list[str]], env: dict[str, str], workdir: Path,
               timeout: float) -> PassResult:
    """Run the *commands* at once; wall time until the last ends, CPU from wait4, peak RSS of the trees.

    The peak RSS is the sum of every process's own peak: the roots' exact ru_maxrss from wait4, and
    the descendants' (worker processes) VmHWM as last polled.
    """
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

    memory = TreeMemory([proc.pid for proc in procs])
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
    memory.stop()
    summaries, tails, engine_s = [], [], 0.0
    for out, err in outputs:
        out.seek(0)
        err.seek(0)
        lines = [line for line in out.read().splitlines() if line.startswith("checked ")]
        summaries.append(lines[-1] if lines else "(no summary line)")
        tails.append("\n".join(line for line in err.read().splitlines()
                                if not _NOISE.search(line))[-2000:])
        out.close()
        err.close()
        if " in " in summaries[-1] and summaries[-1].endswith(" s"):
            try:
                engine_s = max(engine_s, float(summaries[-1].rsplit(" in ", 1)[1][:-2]))
            except ValueError:
                pass
    usages = {pid: u for pid, (_, u) in results.items()}
    root_kib = [usages[p.pid].ru_maxrss if p.pid in usages else memory.peaks.get(p.pid, 0) for p in procs]
    children_kib = [kib for pid, kib in memory.peaks.items() if pid not in {p.pid for p in procs}]
    short = {"fetch workers": "worker", "multiprocessing helpers": "helper"}
    breakdown = [f"engine {kib / 1024:.0f}" for kib in root_kib]
    breakdown += [f"{short.get(memory.roles.get(pid, ''), 'other')} {kib / 1024:.0f}"
                  for pid, kib in memory.peaks.items() if pid not in {p.pid for p in procs}]
    return PassResult(
        label=label, wall_s=ended - started, engine_s=engine_s,
        cpu_s=sum(u.ru_utime + u.ru_stime for u in usages.values()),  # includes the reaped workers'
        peak_rss_mb=(sum(root_kib) + sum(children_kib)) / 1024,  # ru_maxrss is in KiB on Linux
        processes=len(procs) + len(children_kib), max_tree_rss_mb=memory.max_total_kib / 1024,
        rss_breakdown=" + ".join(breakdown),
        returncode=max((abs(p.returncode or 0) for p in procs), default=0),
        summaries=summaries, stderr_tail="".join(t for t in tails if t.strip()),
    )


def measured_pass(label: str, commands: list[list[str]], env: dict[str, str], workdir: Path, timeout: float,
                  up: fake.Upstream, db_path: Path) -> PassResult:
    """:func:`run_engine`, with the upstream's CPU, the other load, the statuses answered and the file's state."""
    before = (up.cpu_seconds(), cpu_busy_seconds(), own_cpu_seconds())
    result = run_engine(label, commands, env, workdir, timeout)
    after = (up.cpu_seconds(), cpu_busy_seconds(), own_cpu_seconds())
    result.upstream_cpu_s = after[0] - before[0]
    result.other_cpu_s = max(0.0, (after[1] - before[1]) - result.cpu_s - result.upstream_cpu_s
                             - (after[2] - before[2]))
    result.statuses = dict(up.statuses())
    result.db = db_state(db_path)
    return result


def commands_for(projects: int, shards: int, anitrack: str) -> list[list[str]]:
    """`anitrack check --all`, or *shards* `anitrack check --project ...` commands over blocks of the ids."""
    if shards <= 1:
        return [[anitrack, "check", "--all"]]
    ids = list(range(1, projects + 1))
    size = -(-len(ids) // shards)
    return [[anitrack, "check", *[f"--project={i}" for i in ids[start:start + size]]]
            for start in range(0, len(ids), size)]


# ---- profiling (py-spy) ----

#: (category, pattern): the innermost frame of a sample that matches a pattern names the sample's category
PROFILE_RULES: list[tuple[str, re.Pattern[str]]] = [(name, re.compile(pattern)) for name, pattern in (
    ("SQLite (the C library, via the sqlite3 module)",
     r"\.(_execute_cursor|execute_sql|iterate|commit|rollback|begin) \(peewee\.py|\.(fetchone|fetchall) \("),
    ("events (outbox rows, message bodies)", r"\(anitrack_core/events/|_announce_new_versions \("),
    ("peewee (SQL building, rows, transactions)", r"\(peewee\.py|\(playhouse/"),
    ("regex search (versions_from_text)", r"\(anitrack_core/check/regex\.py|\(regex/"),
    ("socket I/O (connect, send, recv)", r"\(socket\.py|\(ssl\.py|^(_bounded|recv|recv_into) \(anitrack_core/check/http/transport"),
    ("http.client + email (status line, headers)", r"\(http/client\.py|\(email/"),
    ("urllib3 (pool, connection, response)", r"\(urllib3/"),
    ("requests (session, prepare, adapter, cookies, hooks)", r"\(requests/|\(http/cookiejar\.py"),
    ("urllib.parse (URL splitting)", r"\(urllib/parse\.py"),
    ("anitrack HTTP layer (check/http: client, transport, guard, limits)",
     r"\(anitrack_core/check/http/|\(ipaddress\.py"),
    ("version schemes, listing (sort keys, keep, display)",
     r"\(anitrack_core/(versions|builtin)|\(anitrack_core/(listing|resolve)\.py"),
    ("JSON", r"\(json/"),
    ("apply (other)", r"\(anitrack_core/check/apply\.py"),
    ("plugin hooks (pluggy)", r"\(pluggy/|\(anitrack_core/plugins"),
    ("multiprocessing (pickling, pipes, queues)",
     r"\(multiprocessing/|\(pickle\.py|\(copyreg\.py|\(concurrent/futures/process\.py|^(loads|dumps) \("),
    ("threads, locks, futures", r"\(threading\.py|\(concurrent/futures|\(queue\.py|\(selectors\.py"),
    ("runner, fetch, backend (other)", r"\(anitrack_core/check/|\(anitrack_backend_custom"),
    ("start-up (imports, settings, plugins)", r"<frozen importlib|\(importlib|\(anitrack_core/(config|runtime|cli)"),
)]


_PROCESS_FRAME = re.compile(r'process (\d+):"((?:[^"\\]|\\.)*)"')
PROFILE_RATE = 200  # samples per second and process


def _role(command: str) -> str:
    if " worker" in command:
        return "anitrack worker (Celery: fetches and writes)"
    if "spawn_main" in command:
        return "fetch workers"
    if "resource_tracker" in command or "forkserver" in command:
        return "multiprocessing helpers"
    return "engine process (the writer)"


_OWN_FRAME = re.compile(r"^(.*) \(((?:anitrack_core|anitrack_web|anitrack_backend_\w+)/[^:]*):\d+\)$")


def categorize(raw: Path) -> dict[str, tuple[Counter[str], set[str], Counter[str]]]:
    """Samples by process role, then by category (and by innermost anitrack function), from py-spy's raw output."""
    roles: dict[str, tuple[Counter[str], set[str], Counter[str]]] = {}
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        processes = _PROCESS_FRAME.findall(stack)  # a command line may hold ';', so these go first
        frames = [f for f in _PROCESS_FRAME.sub("", stack).split(";") if f.strip()]
        role = _role(processes[-1][1]) if processes else "engine process (the writer)"
        category = "other" if frames else "(no Python frame: interpreter start-up or exit)"
        for frame in reversed(frames):
            found = next((name for name, pattern in PROFILE_RULES if pattern.search(frame)), None)
            if found:
                category = found
                break
        counts, pids, callers = roles.setdefault(role, (Counter(), set(), Counter()))
        counts[category] += int(count)
        own = next((m for m in map(_OWN_FRAME.match, reversed(frames)) if m), None)
        callers[f"{own.group(1)} ({own.group(2)})" if own else "(no anitrack frame)"] += int(count)
        if processes:
            pids.add(processes[-1][0])
    return roles


def profile_text(label: str, raw: Path, wall_s: float, gil_only: bool) -> str:
    roles = categorize(raw)
    if not roles:
        return f"profile of {label}: no samples"
    what = "holding the GIL" if gil_only else "running (any thread)"
    lines = [f"profile of {label} ({wall_s:.1f} s wall under the profiler; seconds {what}, "
             f"from {PROFILE_RATE} samples/s per process):"]
    for role, (counts, pids, callers) in sorted(roles.items(), key=lambda item: -sum(item[1][0].values())):
        total = sum(counts.values())
        busy = total / PROFILE_RATE
        lines.append(f"  {role} ({len(pids) or 1} process(es)): {busy:.2f} s, "
                     f"{100 * busy / wall_s / max(1, len(pids)):.0f} % of the wall time each")
        lines += [f"    {100 * count / total:5.1f} %  {count / PROFILE_RATE:6.2f} s  {name}"
                  for name, count in counts.most_common() if count / total >= 0.005]
        if total >= 50:
            lines.append("    by the innermost anitrack function on the stack (top 8):")
            lines += [f"    {100 * count / total:5.1f} %  {count / PROFILE_RATE:6.2f} s  {name}"
                      for name, count in callers.most_common(8)]
    return "\n".join(lines)


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


#: the slow-upstream scenarios of the issue: (name, backend, hosts, target seconds or None for info)
SLOW_SCENARIOS = [
    ("PyPI backend, one host (an index service)", "PyPI", 1, 10.0),
    ("custom backend, 50 hosts", "custom", 50, 10.0),
    ("custom backend, one host", "custom", 1, None),
]


def run_slow(args: argparse.Namespace, anitrack: str, tmp: Path) -> list[dict[str, str]]:
    """Pass 1 of each of :data:`SLOW_SCENARIOS` over *args.projects* projects, the upstream answering
    after *args.latency* seconds, with the shipped defaults (settings from --processes etc. if given)."""
    rows = []
    site = tmp / "www"
    fake.write_site(site, args.projects)
    for name, backend, hosts, target in SLOW_SCENARIOS:
        if args.only and args.only not in name:
            continue
        workdir = tmp / f"slow-{backend}-{hosts}"
        workdir.mkdir()
        with fake.Upstream(site, workdir, server="python", hosts=hosts, latency=args.latency) as up:
            db_path = workdir / "bench.db"
            seed(db_path, up, args.projects, backend)
            settings = {"ANITRACK_PYPI_URL": up.pypi_url} if backend == "PyPI" else {}
            env = engine_env(db_path, workdir, {**settings, **fixed_settings(args)})
            if args.wait_idle > 0:
                wait_for_quiet(args.wait_idle, name)
            result = measured_pass("slow", [[anitrack, "check", "--all"]], env, workdir, args.timeout, up, db_path)
        problems = check_pass("new", result, args.projects)
        ok = None if target is None else (result.wall_s <= target and not problems)
        print(f"{name}: {result.wall_s:.2f} s wall, engine {result.engine_s:.1f} s, CPU {result.cpu_s:.1f} s, "
              f"peak RSS {result.peak_rss_mb:.0f} MB, upstream CPU {result.upstream_cpu_s:.1f} s, other load "
              f"{result.other_cpu_s:.1f} s; statuses {result.statuses}; {' | '.join(result.summaries)}",
              file=sys.stderr)
        for problem in problems:
            print(f"  MISMATCH: {problem}", file=sys.stderr)
        if result.stderr_tail.strip():
            print("  stderr: " + result.stderr_tail.strip()[-600:], file=sys.stderr)
        rows.append({"scenario": f"{name}: pass 1, {args.projects} projects",
                     "settings": describe_settings(fixed_settings(args)), "seconds": f"{result.wall_s:.2f}",
                     "checks/s": f"{args.projects / result.wall_s:,.0f}", "CPU": f"{100 * result.cpu_s / result.wall_s:.0f} %",
                     "other load": f"{100 * result.other_cpu_s / result.wall_s:.0f} %",
                     "peak RSS": mb(result.peak_rss_mb), "target": "–" if target is None else f"≤{target:g} s",
                     "result": verdict(ok) + (" (mismatch)" if problems else "")})
    return rows


def fixed_settings(args: argparse.Namespace) -> dict[str, str]:
    """The engine settings of --per-host (and, in --slow mode, --processes / --concurrency)."""
    env = {}
    if args.slow and args.processes != "default":
        env["ANITRACK_CHECK_PROCESSES"] = str(int(args.processes))
    if args.slow and args.concurrency != "default":
        env["ANITRACK_CHECK_CONCURRENCY"] = str(int(args.concurrency))
    if args.per_host is not None:
        env["ANITRACK_CHECK_PER_HOST"] = str(args.per_host)
    return env


def describe_settings(env: dict[str, str]) -> str:
    return ", ".join(f"{k.removeprefix('ANITRACK_CHECK_').lower()}={v}" for k, v in env.items()) or "defaults"


def clean_up(tmp: Path, keep: bool) -> None:
    """Remove the temporary directory, unless asked to keep it (--keep)."""
    if keep:
        print(f"kept {tmp}", file=sys.stderr)
    else:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=None,
                        help="projects (and pages) (default 10000; 1000 with --slow)")
    parser.add_argument("--processes", default="default",
                        help="comma-separated ANITRACK_CHECK_PROCESSES values (fetching worker processes; "
                             "0: one per core, 1: none); 'default' leaves the setting alone (default: %(default)s)")
    parser.add_argument("--concurrency", default="default",
                        help="comma-separated ANITRACK_CHECK_CONCURRENCY values (checks in flight; split "
                             "between the worker processes); 'default' leaves it alone (default: %(default)s). "
                             "Every combination of --processes and --concurrency runs on a fresh database")
    parser.add_argument("--shards", type=int, default=1,
                        help="run this many independent `anitrack check --project ID ...` commands at once on "
                             "the same file, each over a block of the ids (default 1: one `check --all`)")
    parser.add_argument("--per-host", type=int, default=None,
                        help="ANITRACK_CHECK_PER_HOST for the engine (default: the engine's own, 4)")
    parser.add_argument("--hosts", type=int, default=1,
                        help="spread the projects over this many loopback addresses 127.0.0.1..N (default 1)")
    parser.add_argument("--server", choices=("auto", "nginx", "python"), default="auto",
                        help="the fake upstream: nginx if installed (auto), or the Python fallback")
    parser.add_argument("--no-bare", action="store_true", help="skip the bare requests loops")
    parser.add_argument("--slow", action="store_true",
                        help="instead: the slow-upstream scenarios (1,000 PyPI projects on one host, 1,000 custom "
                             "projects on 50 hosts and on one host; pass 1 only) with the upstream answering "
                             "after --latency (the Python server); --projects defaults to 1000 then")
    parser.add_argument("--latency", type=float, default=0.2, metavar="S",
                        help="with --slow: seconds the upstream waits before each answer (default %(default)s)")
    parser.add_argument("--only", help="with --slow: only the scenarios whose name contains this text")
    parser.add_argument("--wait-idle", type=float, default=300.0, metavar="S",
                        help="before each measurement, wait up to S seconds for the rest of the machine to be "
                             "idle (default %(default)s; 0: do not wait)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a pass may take before it is killed")
    parser.add_argument("--py-spy", metavar="BIN", help="profile each pass with this py-spy "
                        "(pip install --target /tmp/pyspy py-spy; BIN=/tmp/pyspy/bin/py-spy); slows the engine")
    parser.add_argument("--py-spy-all-threads", action="store_true",
                        help="sample every running thread, not only the one holding the GIL")
    parser.add_argument("--raw", help="with --py-spy: keep py-spy's collapsed stacks in this directory")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, databases)")
    args = parser.parse_args(argv)
    if args.projects is None:
        args.projects = 1000 if args.slow else 10_000

    anitrack = str(VENV_BIN / "anitrack")
    if not os.access(anitrack, os.X_OK):
        raise SystemExit(f"{anitrack} not found: run with the project's venv python")
    settings_runs = [(p.strip(), c.strip()) for p in args.processes.split(",") if p.strip()
                     for c in args.concurrency.split(",") if c.strip()]
    if args.py_spy and args.shards > 1:
        raise SystemExit("--py-spy profiles one engine command: use it without --shards")

    tmp = Path(tempfile.mkdtemp(prefix="anitrack-bench-checks-"))
    tmp.chmod(0o755)  # nginx's worker (user nobody) reads the site
    report: dict[str, object] = {"projects": args.projects, "shards": args.shards, "runs": [],
                                 "code": code_version()}
    rows: list[dict[str, str]] = []
    profiles: list[tuple[str, Path, float]] = []
    profile_texts: list[str] = []
    if args.slow:
        try:
            rows = run_slow(args, anitrack, tmp)
        finally:
            clean_up(tmp, args.keep)
        print()
        print(f"slow upstreams: answers after {1000 * args.latency:g} ms, {os.cpu_count()} CPUs, Python "
              f"{sys.version.split()[0]}, code {report['code']}")
        print_table(rows)
        return 0
    try:
        site = tmp / "www"
        t0 = time.perf_counter()
        fake.write_site(site, args.projects)
        print(f"site: {args.projects} pages in {time.perf_counter() - t0:.1f} s ({site})", file=sys.stderr)
        with fake.Upstream(site, tmp, server=args.server, hosts=args.hosts) as up:
            note = "" if up.kind == "nginx" else (
                "  (the Python server is slower than nginx and may be the bottleneck"
                + (": install nginx-light)" if not up.nginx else ")"))
            print(f"upstream: {up.version} on {', '.join(up.addresses)} port {up.port}{note}", file=sys.stderr)
            report["upstream"] = up.version
            urls = [up.url(n) for n in range(1, args.projects + 1)]
            template = tmp / "template.db"
            seconds = seed(template, up, args.projects)
            print(f"seeded {args.projects} projects in {seconds:.1f} s", file=sys.stderr)

            bare: dict[str, float] = {}
            if not args.no_bare:
                bare_loop(urls[:200])  # warm-up: connection, page cache
                up.statuses()
                etags: dict[str, str] | None = None
                for name, key in (("bare requests loop, GET (200)", "200"),
                                  ("bare requests loop, If-None-Match (304)", "304"),
                                  ("bare loop, GET, default Session (trust_env)", "200-env")):
                    if args.wait_idle > 0:
                        wait_for_quiet(args.wait_idle, name)
                    before = (up.cpu_seconds(), cpu_busy_seconds(), own_cpu_seconds())
                    secs, seen, statuses = bare_loop(urls, etags if key == "304" else None,
                                                     trust_env=key == "200-env")
                    after = (up.cpu_seconds(), cpu_busy_seconds(), own_cpu_seconds())
                    etags = etags or seen
                    own, upstream_cpu = after[2] - before[2], after[0] - before[0]
                    other = max(0.0, after[1] - before[1] - own - upstream_cpu)
                    bare[key] = secs
                    answered = dict(up.statuses())
                    print(f"{name}: {secs:.2f} s, {len(urls) / secs:.0f} req/s, CPU {own:.1f} s, upstream CPU "
                          f"{upstream_cpu:.1f} s, other load {other:.1f} s; statuses {answered}", file=sys.stderr)
                    if answered != {key[:3]: len(urls)}:
                        print(f"  MISMATCH: expected {{'{key[:3]}': {len(urls)}}}", file=sys.stderr)
                    rows.append({"scenario": name, "settings": "1 thread", "seconds": f"{secs:.2f}",
                                 "checks/s": f"{len(urls) / secs:,.0f}", "engine-only/s": "–",
                                 "× bare": f"{bare['200'] / secs:.2f}" if key == "200-env" else "1.00",
                                 "CPU": f"{100 * own / secs:.0f} %", "other load": f"{100 * other / secs:.0f} %",
                                 "peak RSS": "–", "target": "–", "result": "info"})
                report["bare"] = {k: {"seconds": v, "rate": args.projects / v} for k, v in bare.items()}

            for processes, concurrency in settings_runs:
                env_settings = {}
                if processes != "default":
                    env_settings["ANITRACK_CHECK_PROCESSES"] = str(int(processes))
                if concurrency != "default":
                    env_settings["ANITRACK_CHECK_CONCURRENCY"] = str(int(concurrency))
                if args.per_host is not None:
                    env_settings["ANITRACK_CHECK_PER_HOST"] = str(args.per_host)
                described = ", ".join(f"{k.removeprefix('ANITRACK_CHECK_').lower()}={v}"
                                      for k, v in env_settings.items()) or "defaults"
                if args.shards > 1:
                    described += f", {args.shards} shards"
                if args.hosts > 1:
                    described += f", {args.hosts} hosts"
                setting = f"p{processes}-c{concurrency}"
                db_path = tmp / f"bench-{setting}.db"
                shutil.copyfile(template, db_path)
                data_dir = tmp / "data"
                data_dir.mkdir(exist_ok=True)
                env = engine_env(db_path, data_dir, env_settings)
                commands = commands_for(args.projects, args.shards, anitrack)
                run_report = {"settings": described, "env": env_settings, "passes": []}
                for label, key in (("pass 1: all new", "new"), ("pass 2: all 304", "304")):
                    if args.wait_idle > 0:
                        wait_for_quiet(args.wait_idle, f"{described} / {label}")
                    up.statuses()
                    run_commands, raw = commands, None
                    if args.py_spy:
                        raw = tmp / f"profile-{setting}-{key}.txt"
                        spy = [args.py_spy, "record", "--format", "raw", "-o", str(raw), "--rate", str(PROFILE_RATE),
                               "--nonblocking", "--subprocesses", *([] if args.py_spy_all_threads else ["--gil"]), "--"]
                        run_commands = [spy + command for command in commands]
                    result = measured_pass(f"{setting}-{key}", run_commands, env, tmp, args.timeout, up, db_path)
                    problems = check_pass(key, result, args.projects)
                    rate = args.projects / result.wall_s
                    ok: bool | None = rate >= TARGETS[key] and result.peak_rss_mb < RSS_TARGET_MB and not problems
                    if raw is not None:
                        ok = None  # profiled: slower, and the peak RSS includes py-spy's
                        profiles.append((f"{described} / {label}", raw, result.wall_s))
                        if args.raw:
                            Path(args.raw).mkdir(parents=True, exist_ok=True)
                            shutil.copy(raw, Path(args.raw) / raw.name)
                    print(f"{described} / {label}: {result.wall_s:.2f} s wall ({rate:.0f}/s), engine "
                          f"{result.engine_s:.1f} s, CPU {result.cpu_s:.1f} s, peak RSS {result.peak_rss_mb:.0f} MB "
                          f"(sum of {result.processes} processes' peaks: {result.rss_breakdown}; largest simultaneous sum "
                          f"{result.max_tree_rss_mb:.0f} MB), "
                          f"upstream CPU {result.upstream_cpu_s:.1f} s, other load {result.other_cpu_s:.1f} s; statuses {result.statuses}; "
                          f"{' | '.join(sorted(set(result.summaries)))[:300]}", file=sys.stderr)
                    for problem in problems:
                        print(f"  MISMATCH: {problem}", file=sys.stderr)
                    if result.other_cpu_s > 0.1 * result.wall_s:
                        print(f"  WARNING: other processes used {100 * result.other_cpu_s / result.wall_s:.0f} % "
                              "of a CPU during this pass; the figures are not representative", file=sys.stderr)
                    if result.stderr_tail.strip():
                        print("  stderr: " + result.stderr_tail.strip()[-600:], file=sys.stderr)
                    bare_key = "200" if key == "new" else "304"
                    ratio = f"{bare[bare_key] / result.wall_s:.2f}" if bare_key in bare else "–"
                    engine_rate = f"{args.projects / result.engine_s:,.0f}" if result.engine_s else "–"
                    rows.append({
                        "scenario": f"anitrack {label}", "settings": described, "seconds": f"{result.wall_s:.2f}",
                        "checks/s": f"{rate:,.0f}", "engine-only/s": engine_rate, "× bare": ratio,
                        "CPU": f"{100 * result.cpu_s / result.wall_s:.0f} %",
                        "other load": f"{100 * result.other_cpu_s / result.wall_s:.0f} %",
                        "peak RSS": mb(result.peak_rss_mb),
                        "target": f"≥{TARGETS[key]:,.0f}/s, <{RSS_TARGET_MB:.0f} MB",
                        "result": verdict(ok) + (" (mismatch)" if problems else ""),
                    })
                    run_report["passes"].append({**asdict(result), "rate": rate, "problems": problems, "ok": ok})
                report["runs"].append(run_report)
        profile_texts = [profile_text(label, raw, wall, not args.py_spy_all_threads) for label, raw, wall in profiles]
    finally:
        clean_up(tmp, args.keep)

    print()
    print(f"{args.projects} projects on the `custom` backend, SQLite {sqlite3.sqlite_version}, {os.cpu_count()} CPUs, "
          f"Python {sys.version.split()[0]}, upstream {report.get('upstream')}, code {report['code']}"
          + (" (profiled with py-spy: slower; RSS includes py-spy)" if args.py_spy else ""))
    print_table(rows)
    for text in profile_texts:
        print()
        print(text)
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
