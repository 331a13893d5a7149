"""HTTP API benchmark: the real server (``anitrack serve``, waitress) on a seeded SQLite database.

    /work/venv/bin/python bench/api.py [--projects 10000] [--duration 10] [--connections 8]

Seeds a fresh database in a temporary directory (bench/seed.py), starts
``anitrack serve --no-scheduler`` on a free loopback port as a subprocess,
waits for /healthz, then drives each scenario with a load generator on
127.0.0.1 for a fixed time after a warm-up, and prints requests/s, p50, p99
and errors against the targets of the issue.  The load generator is ``wrk``
(``apt-get install wrk``) when it is on PATH, else a Python client
(processes with keep-alive ``http.client`` connections); the output says
which.  The server is stopped and the temporary files removed at the end.

It prints figures; it is not a test (exit status 0 unless it could not run).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the checkout: the test servers' free-port helper

from tests.servers import free_port  # noqa: E402

HOST = "127.0.0.1"  # loopback only, always


@dataclass
class Scenario:
    name: str
    #: a path; ``{n}`` is replaced by a random integer in *rand* (inclusive) per request
    path: str
    rand: tuple[int, int] | None = None
    min_rps: float | None = None
    max_p99_ms: float | None = None
    note: str = ""

    def target_text(self) -> str:
        parts = []
        if self.min_rps is not None:
            parts.append(f">={self.min_rps:,.0f}/s")
        if self.max_p99_ms is not None:
            parts.append(f"p99<{self.max_p99_ms:g}ms")
        return ", ".join(parts) or "-"


@dataclass
class Result:
    scenario: Scenario
    client: str
    requests: int = 0
    duration_s: float = 0.0
    rps: float = 0.0
    p50_ms: float = math.nan
    p90_ms: float = math.nan
    p99_ms: float = math.nan
    max_ms: float = math.nan
    errors: int = 0
    error_detail: dict[str, int] = field(default_factory=dict)
    bytes_per_request: float = 0.0
    server_cpu_pct: float = math.nan  # of one core; 200 = both cores
    client_cpu_pct: float = math.nan

    @property
    def verdict(self) -> str:
        s = self.scenario
        if s.min_rps is None and s.max_p99_ms is None:
            return "info"
        ok = self.errors == 0 and self.requests > 0
        if s.min_rps is not None:
            ok = ok and self.rps >= s.min_rps
        if s.max_p99_ms is not None:
            ok = ok and self.p99_ms < s.max_p99_ms
        return "PASS" if ok else "FAIL"


def scenarios(projects: int) -> list[Scenario]:
    return [
        Scenario("projects, 25/page", "/api/v2/projects/?items_per_page=25", min_rps=1000, max_p99_ms=50,
                 note="first page, as in the issue"),
        Scenario("projects, 25/page, random page", "/api/v2/projects/?items_per_page=25&page={n}",
                 rand=(1, max(1, math.ceil(projects / 25))), note="every page of the list (deep OFFSETs)"),
        Scenario("projects, 250/page", "/api/v2/projects/?items_per_page=250", min_rps=150,
                 note="first page, as in the issue"),
        Scenario("versions, random project_id", "/api/v2/versions/?project_id={n}", rand=(1, projects),
                 min_rps=1500),
        Scenario("floor: GET /api/version", "/api/version",
                 note="no database work: waitress + bottle + per-request hooks, the ceiling for any route"),
    ]


# ---------------------------------------------------------------- the server

def server_env(db_path: Path, data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANITRACK_")}
    env.update({
        "ANITRACK_DATABASE_URL": f"sqlite:///{db_path}",  # absolute path -> sqlite:////tmp/...
        "ANITRACK_DATA_DIR": str(data_dir),
        # built-in plugins only: deterministic; listing needs no backend (unknown ones still list)
        "ANITRACK_NO_PLUGIN_AUTOLOAD": "1",
        "PYTHONUNBUFFERED": "1",
    })
    return env


def anitrack_command() -> list[str]:
    script = Path(sys.executable).parent / "anitrack"
    if script.exists():
        return [str(script)]
    found = shutil.which("anitrack")
    return [found] if found else [sys.executable, "-m", "anitrack_core.cli"]


class Server:
    def __init__(self, env: dict[str, str], port: int, log_path: Path, cpus: set[int] | None = None) -> None:
        self.port = port
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.cmd = [*anitrack_command(), "serve", "--host", HOST, "--port", str(port), "--no-scheduler"]
        pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
        self.proc = subprocess.Popen(self.cmd, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, preexec_fn=pin)

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=1) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server not ready after {timeout:.0f} s:\n{self.log_tail()}")

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server and its worker processes so far."""
        total = 0.0
        for pid in [self.proc.pid, *self._workers()]:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except (OSError, IndexError, ValueError):
                if pid == self.proc.pid:
                    return math.nan
        return total

    def _workers(self) -> list[int]:
        """The worker processes `anitrack serve` forked (children of the server process)."""
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == self.proc.pid:
                    found.append(int(entry))
        return found

    def first_log_line(self) -> str:
        self._log.flush()
        lines = self.log_path.read_text(errors="replace").splitlines()
        return next((line for line in lines if line.startswith("anitrack serving")), "?")

    def log_tail(self, lines: int = 30) -> str:
        self._log.flush()
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            for sig, wait in ((signal.SIGINT, 5), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
                self.proc.send_signal(sig)
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        self._log.close()


# ---------------------------------------------------------------- wrk

_LUA = r"""
local path = "%(path)s"
local lo, hi = %(lo)d, %(hi)d
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
end
function init(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
end
function request()
  if hi > 0 then
    return wrk.format("GET", (string.gsub(path, "{n}", tostring(math.random(lo, hi)))))
  end
  return wrk.format("GET", path)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests": %%d, "duration_us": %%d, "bytes": %%d, "p50": %%d, "p90": %%d, "p99": %%d, ' ..
    '"max": %%d, "connect": %%d, "read": %%d, "write": %%d, "status": %%d, "timeout": %%d}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, e.connect, e.read, e.write, e.status, e.timeout))
end
"""


def run_wrk(wrk: str, base: str, scenario: Scenario, seconds: float, connections: int, workdir: Path,
            server: Server) -> Result:
    lo, hi = scenario.rand or (0, 0)
    script = workdir / "scenario.lua"
    script.write_text(_LUA % {"path": scenario.path.replace('"', '\\"'), "lo": lo, "hi": hi})
    threads = max(1, min(2, connections))
    cmd = [wrk, f"-t{threads}", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency",
           "--timeout", "5s", "-s", str(script), base]
    before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0, t0 = server.cpu_seconds(), time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    wall = time.monotonic() - t0
    cpu1 = server.cpu_seconds()
    after_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("WRKJSON ")), None)
    if out.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    data = json.loads(line[len("WRKJSON "):])
    res = Result(scenario, "wrk")
    res.requests = data["requests"]
    res.duration_s = data["duration_us"] / 1e6
    res.rps = res.requests / res.duration_s if res.duration_s else 0.0
    res.p50_ms, res.p90_ms, res.p99_ms, res.max_ms = (data[k] / 1000 for k in ("p50", "p90", "p99", "max"))
    res.error_detail = {k: data[k] for k in ("connect", "read", "write", "status", "timeout") if data[k]}
    res.errors = sum(res.error_detail.values())
    res.bytes_per_request = data["bytes"] / res.requests if res.requests else 0.0
    res.server_cpu_pct = 100 * (cpu1 - cpu0) / wall
    client_cpu = (after_children.ru_utime + after_children.ru_stime
                  - before_children.ru_utime - before_children.ru_stime)
    res.client_cpu_pct = 100 * client_cpu / wall
    return res


# ---------------------------------------------------------------- Python client (fallback)

def _py_worker(args: tuple[str, int, str, tuple[int, int] | None, float, int]) -> dict[str, Any]:
    import http.client

    host, port, path, rand, seconds, seed = args
    rng = random.Random(seed)
    latencies: list[float] = []
    errors: dict[str, int] = {}
    nbytes = 0
    conn = http.client.HTTPConnection(host, port, timeout=5)
    cpu_start = time.process_time()
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        now = time.perf_counter()
        if now >= deadline:
            break
        target = path.replace("{n}", str(rng.randint(*rand))) if rand else path
        try:
            conn.request("GET", target)
            resp = conn.getresponse()
            body = resp.read()
            done = time.perf_counter()
            nbytes += len(body)
            if resp.status >= 400:
                errors["status"] = errors.get("status", 0) + 1
            latencies.append(done - now)
        except (OSError, http.client.HTTPException) as exc:
            key = type(exc).__name__
            errors[key] = errors.get(key, 0) + 1
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=5)
    elapsed = time.perf_counter() - start
    conn.close()
    cpu = time.process_time() - cpu_start
    return {"latencies": latencies, "errors": errors, "bytes": nbytes, "elapsed": elapsed, "cpu": cpu}


def _percentile(sorted_values: list[float], pct: float) -> float:
    if not sorted_values:
        return math.nan
    index = min(len(sorted_values) - 1, max(0, math.ceil(pct / 100 * len(sorted_values)) - 1))
    return sorted_values[index]


def run_python(pool: multiprocessing.pool.Pool, port: int, scenario: Scenario, seconds: float,
               connections: int, server: Server) -> Result:
    jobs = [(HOST, port, scenario.path, scenario.rand, seconds, random.randrange(1 << 30))
            for _ in range(connections)]
    cpu0, t0 = server.cpu_seconds(), time.monotonic()
    parts = pool.map(_py_worker, jobs)
    wall = time.monotonic() - t0
    cpu1 = server.cpu_seconds()
    latencies = sorted(x for p in parts for x in p["latencies"])
    res = Result(scenario, "python")
    res.requests = len(latencies)
    res.duration_s = max(p["elapsed"] for p in parts)
    res.rps = res.requests / res.duration_s if res.duration_s else 0.0
    res.p50_ms, res.p90_ms, res.p99_ms = (_percentile(latencies, q) * 1000 for q in (50, 90, 99))
    res.max_ms = latencies[-1] * 1000 if latencies else math.nan
    for p in parts:
        for key, n in p["errors"].items():
            res.error_detail[key] = res.error_detail.get(key, 0) + n
    res.errors = sum(res.error_detail.values())
    res.bytes_per_request = sum(p["bytes"] for p in parts) / res.requests if res.requests else 0.0
    res.server_cpu_pct = 100 * (cpu1 - cpu0) / wall
    res.client_cpu_pct = 100 * sum(p["cpu"] for p in parts) / wall
    return res


# ---------------------------------------------------------------- checks and in-process figures

def check_responses(base: str, scs: list[Scenario], projects: int) -> None:
    """One request of each scenario must answer 200 with the expected shape, or the figures mean nothing."""
    for sc in scs:
        path = sc.path.replace("{n}", str(sc.rand[1] if sc.rand else 1))
        with urllib.request.urlopen(base + path, timeout=10) as resp:
            body = json.loads(resp.read())
        if "items" in body:
            per_page = int(path.split("items_per_page=")[1].split("&")[0])
            if body["total_items"] != projects or not body["items"] or len(body["items"]) > per_page:
                raise RuntimeError(f"{path}: unexpected body: total_items={body.get('total_items')}, "
                                   f"{len(body['items'])} items")
        elif path.startswith("/api/version"):
            if "version" not in body:
                raise RuntimeError(f"{path}: unexpected body {str(body)[:200]}")
        elif "versions" not in body or not body["versions"]:
            raise RuntimeError(f"{path}: unexpected body {str(body)[:200]}")


def in_process(env: dict[str, str], scs: list[Scenario], iterations: int, show_sql: bool) -> dict[str, Any]:
    """SQL statements per request and mean time per request through the WSGI app, without HTTP.

    Runs in this process against the same database file (the server keeps running but is idle).
    """
    import io
    from wsgiref.util import setup_testing_defaults

    os.environ.update(env)  # this process is a throwaway: make load_runtime read the same settings
    from anitrack_core.runtime import load_runtime
    from anitrack_web.app import create_app

    runtime = load_runtime()
    app = create_app(runtime)
    db = runtime.db
    statements: list[str] = []
    real_execute_sql = db.execute_sql

    def counting_execute_sql(sql: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        statements.append(sql)
        return real_execute_sql(sql, params, *args, **kwargs)

    db.execute_sql = counting_execute_sql  # instance attribute shadows the method
    rng = random.Random(7)

    def call(path: str) -> tuple[str, bytes]:
        environ: dict[str, Any] = {}
        setup_testing_defaults(environ)
        route, _, query = path.partition("?")
        environ.update({"PATH_INFO": route, "QUERY_STRING": query, "REQUEST_METHOD": "GET",
                        "wsgi.input": io.BytesIO(b"")})
        status: list[str] = []
        body = b"".join(app(environ, lambda s, h, exc_info=None: status.append(s)))
        return status[0], body

    out: dict[str, Any] = {}
    for sc in scs:
        def path_of() -> str:
            return sc.path.replace("{n}", str(rng.randint(*sc.rand))) if sc.rand else sc.path

        call(path_of())  # warm caches
        statements.clear()
        status, _ = call(path_of())
        sql = list(statements)
        t0 = time.perf_counter()
        for _ in range(iterations):
            call(path_of())
        mean_ms = (time.perf_counter() - t0) / iterations * 1000
        out[sc.name] = {"status": status, "queries": len(sql), "mean_ms": mean_ms, "sql": sql}
        if show_sql:
            print(f"\n-- {sc.name}: {len(sql)} statement(s)")
            for s in sql:
                print("   " + (s if len(s) < 400 else s[:400] + " ..."))
    db.execute_sql = real_execute_sql
    return out


# ---------------------------------------------------------------- reporting

def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import sqlite3

    return (f"{os.cpu_count()} CPU(s) ({cpu}), Python {platform.python_version()}, "
            f"SQLite {sqlite3.sqlite_version}, {platform.system()} {platform.release()}")


def code_version() -> str:
    """The commit the server code comes from, and whether its code has uncommitted changes."""
    repo = HERE.parent
    try:
        rev = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--", "anitrack_core",
                                "anitrack_web"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (rev or "unknown") + (" + uncommitted changes in anitrack_core/anitrack_web" if dirty else "")


def print_table(results: list[Result], inproc: dict[str, Any] | None) -> None:
    head = ["scenario", "req/s", "p50 ms", "p90 ms", "p99 ms", "errors", "KB/resp", "srv CPU", "cli CPU",
            "target", "result"]
    if inproc:
        head[9:9] = ["SQL/req", "in-proc ms"]
    rows = []
    for r in results:
        row = [r.scenario.name, f"{r.rps:,.0f}", f"{r.p50_ms:.1f}", f"{r.p90_ms:.1f}", f"{r.p99_ms:.1f}",
               str(r.errors) + (f" {r.error_detail}" if r.errors else ""), f"{r.bytes_per_request / 1024:.1f}",
               f"{r.server_cpu_pct:.0f}%", "-" if math.isnan(r.client_cpu_pct) else f"{r.client_cpu_pct:.0f}%",
               r.scenario.target_text(), r.verdict]
        if inproc:
            info = inproc.get(r.scenario.name, {})
            row[9:9] = [str(info.get("queries", "?")), f"{info.get('mean_ms', math.nan):.2f}"]
        rows.append(row)
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    fmt = " | ".join(f"{{:{'<' if i == 0 else '>'}{w}}}" for i, w in enumerate(widths))
    print(fmt.format(*head))
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        print(fmt.format(*row))


# ---------------------------------------------------------------- main

def main(argv: list[str] | None = None, *, make_scenarios: Any = None, check: Any = None,
         description: str = "Benchmark the anitrack HTTP API under the real server.") -> int:
    """Run the benchmark; bench/pages.py passes its own scenarios and response check."""
    make_scenarios = make_scenarios or scenarios
    check = check or check_responses
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--projects", type=int, default=10_000, help="projects to seed (default 10000)")
    parser.add_argument("--duration", type=float, default=10, help="measured seconds per scenario (default 10)")
    parser.add_argument("--warmup", type=float, default=2, help="warm-up seconds per scenario (default 2)")
    parser.add_argument("--connections", type=int, default=8, help="concurrent client connections (default 8)")
    parser.add_argument("--client", choices=("auto", "wrk", "python"), default="auto",
                        help="load generator (auto: wrk when installed, else Python)")
    parser.add_argument("--only", metavar="TEXT", help="run only scenarios whose name contains TEXT")
    parser.add_argument("--db", type=Path, help="use this already seeded SQLite file instead of seeding "
                        "(--projects must match its project count)")
    parser.add_argument("--no-inproc", action="store_true", help="skip the in-process SQL count and timing")
    parser.add_argument("--show-sql", action="store_true", help="print the SQL of one request per scenario")
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    parser.add_argument("--pin", action="store_true",
                        help="pin the server to the last CPU and the client to the others (Linux; see README)")
    parser.add_argument("--hold", type=float, default=0, metavar="SECONDS",
                        help="keep the server up this long after the run (to attach a profiler)")
    args = parser.parse_args(argv)

    wrk = shutil.which("wrk")
    if args.client == "wrk" and not wrk:
        parser.error("wrk is not installed (apt-get install wrk)")
    use_wrk = wrk is not None and args.client != "python"
    scs = make_scenarios(args.projects)
    if args.only:
        scs = [s for s in scs if args.only.casefold() in s.name.casefold()]

    workdir = Path(tempfile.mkdtemp(prefix="anitrack-bench-"))
    server: Server | None = None
    pool = None
    try:
        if args.db:
            db_path = args.db.resolve()
            print(f"database: {db_path} (given)", flush=True)
        else:
            sys.path.insert(0, str(HERE))
            from seed import seed

            db_path = workdir / "bench.db"
            stats = seed(db_path, args.projects, quiet=True)
            print(f"seeded {stats['projects']:,} projects, {stats['versions']:,} versions, "
                  f"{stats['packages']:,} packages in {stats['total_s']:.1f} s", flush=True)
        data_dir = workdir / "data"
        data_dir.mkdir()
        env = server_env(db_path, data_dir)
        port = free_port()
        server_cpus = client_cpus = None
        if args.pin:
            cpus = sorted(os.sched_getaffinity(0))
            if len(cpus) < 2:
                parser.error("--pin needs at least 2 CPUs")
            server_cpus, client_cpus = {cpus[-1]}, set(cpus[:-1])
        server = Server(env, port, workdir / "server.log", server_cpus)
        if client_cpus:
            os.sched_setaffinity(0, client_cpus)  # wrk and the Python client inherit it
        server.wait_ready()
        check(server.base, scs, args.projects)
        client = f"wrk ({wrk})" if use_wrk else "python (http.client keep-alive, one process per connection)"
        print(f"server: {' '.join(server.cmd)} (pid {server.proc.pid}; its first log line: "
              f"{server.first_log_line()})")
        print(f"client: {client}; {args.connections} connections; {args.warmup:g} s warm-up + "
              f"{args.duration:g} s per scenario; loopback {HOST}")
        print(f"machine: {machine()}", flush=True)
        print(f"code: {code_version()}", flush=True)
        if args.pin:
            print(f"pinned: server on CPU {sorted(server_cpus)}, client on CPU {sorted(client_cpus)}", flush=True)

        if not use_wrk:
            pool = multiprocessing.get_context("fork").Pool(args.connections)
        results = []
        for sc in scs:
            print(f"  running: {sc.name} ...", end="", flush=True)
            if use_wrk:
                if args.warmup > 0:
                    run_wrk(wrk, server.base, sc, args.warmup, args.connections, workdir, server)
                res = run_wrk(wrk, server.base, sc, args.duration, args.connections, workdir, server)
            else:
                if args.warmup > 0:
                    run_python(pool, port, sc, args.warmup, args.connections, server)
                res = run_python(pool, port, sc, args.duration, args.connections, server)
            print(f" {res.rps:,.0f} req/s", flush=True)
            results.append(res)
            if server.proc.poll() is not None:
                raise RuntimeError(f"server died:\n{server.log_tail()}")

        if args.hold > 0:
            print(f"holding the server (pid {server.proc.pid}, {server.base}) for {args.hold:g} s", flush=True)
            time.sleep(args.hold)

        inproc = None
        if not args.no_inproc:
            inproc = in_process(env, scs, 300, args.show_sql)

        print()
        print_table(results, inproc)
        print("\nreq/s, p50/p90/p99: measured over HTTP by the client; srv/cli CPU: % of one core "
              f"(the machine has {os.cpu_count()}); SQL/req and in-proc ms: the WSGI app called in this "
              "process, no HTTP, no concurrency.")
        if args.json:
            args.json.write_text(json.dumps({
                "machine": machine(), "code": code_version(), "client": client, "connections": args.connections, "pinned": args.pin,
                "duration_s": args.duration, "projects": args.projects,
                "results": [{"scenario": r.scenario.name, "path": r.scenario.path, "rps": r.rps,
                             "p50_ms": r.p50_ms, "p90_ms": r.p90_ms, "p99_ms": r.p99_ms, "max_ms": r.max_ms,
                             "errors": r.errors, "requests": r.requests, "bytes_per_request": r.bytes_per_request,
                             "server_cpu_pct": r.server_cpu_pct, "client_cpu_pct": r.client_cpu_pct,
                             "target": r.scenario.target_text(), "verdict": r.verdict,
                             **({"sql_per_request": inproc[r.scenario.name]["queries"],
                                 "inproc_ms": inproc[r.scenario.name]["mean_ms"]} if inproc else {})}
                            for r in results]}, indent=2))
        return 0
    except RuntimeError as exc:
        print(f"\nbench: error: {exc}", file=sys.stderr)
        return 1
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        if server is not None:
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
