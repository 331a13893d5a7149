"""Scaled-out checking benchmark: `anitrack scheduler` + 1, 2 and 4 `anitrack worker` beside `anitrack check --all`.

    .venv/bin/python bench/scale.py [--projects 10000] [--latency 0.1,0] [--workers 1,2,4] [--broker redis]

Prints figures (checks/s, scaling efficiency); it is not a test.  What it does (bench/README.md,
section "Scaled-out checking"):

1. starts a throwaway PostgreSQL (max_connections raised to 300: one connection per worker thread) and
   a broker (Redis or RabbitMQ) from the Debian packages, as the tests do (tests/servers);
2. starts a fake upstream in a child process: asyncio, HTTP/1.1 keep-alive, on 127.0.0.1 ... 127.0.0.16,
   answering each project's page (three tarball links) after *latency* seconds;
3. for each latency and each mode, on a fresh database of N due `custom` projects spread over the 16
   host names (the per-host bound stays at its default, 4 per host, shared by every worker):
   * `anitrack check --all` (the in-process pass, its default settings);
   * W `anitrack worker` processes (default concurrency, the scale.concurrency setting: 64 checks in
     flight), started first, then `anitrack scheduler`; timed from the scheduler's start until every
     project has been checked (polling the workers' pass records);
4. verifies every project stored its three versions, and prints a table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ANITRACK = str(Path(sys.executable).parent / "anitrack")
HOSTS = 16
VERSIONS = ("1.0", "1.1", "1.2")


# ---- the fake upstream (child process) ----

def serve(port: int, latency: float) -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ", 2)[1].decode()
                if latency:
                    await asyncio.sleep(latency)
                n = path.strip("/").split("/")[-1]
                body = " ".join(f'<a href="proj{n}-{v}.tar.gz">proj{n}-{v}.tar.gz</a>' for v in VERSIONS).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s"
                             % (len(body), body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, IndexError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        servers = [await asyncio.start_server(handle, f"127.0.0.{i}", port, backlog=1024)
                   for i in range(1, HOSTS + 1)]
        print("ready", flush=True)
        await asyncio.gather(*(server.serve_forever() for server in servers))

    asyncio.run(main())


def start_upstream(latency: float) -> tuple[subprocess.Popen, int]:
    from tests.servers import free_port

    port = free_port("127.0.0.1")
    process = subprocess.Popen([sys.executable, __file__, "--serve", str(port), str(latency)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    return process, port


# ---- servers and data ----

def start_postgres() -> object:
    from tests.servers.postgres import PostgresServer

    class Server(PostgresServer):
        def _initdb(self) -> None:
            super()._initdb()
            with open(self.data_dir / "postgresql.conf", "a", encoding="utf-8") as conf:
                conf.write("max_connections = 300\n")

    return Server().start()


def start_broker(kind: str) -> object:
    from tests.servers.brokers import start_rabbitmq, start_redis

    root = Path(tempfile.mkdtemp(prefix=f"anitrack-{kind}-"))
    return (start_redis if kind == "redis" else start_rabbitmq)(root)


def fresh_database(server: object, projects: int, port: int) -> str:
    from anitrack_core.db.database import open_database
    from anitrack_core.db.migrate import upgrade
    from anitrack_core.db.models import Project, utcnow

    url = server.create_database("b_" + uuid.uuid4().hex[:12])
    db = open_database(url)
    upgrade(db)
    now = utcnow()
    rows = [{"name": f"proj{n}", "name_key": f"proj{n}", "homepage": f"https://proj{n}.example/", "backend": "custom",
             "ecosystem_name": f"https://proj{n}.example/", "ecosystem_key": f"https://proj{n}.example/",
             "in_ecosystem": False, "version_url": f"http://127.0.0.{1 + n % HOSTS}:{port}/p/{n}/",
             "insecure": False, "releases_only": False, "error_counter": 0, "archived": False, "created_on": now,
             "updated_on": now, "next_check": now} for n in range(1, projects + 1)]
    with db.connection_context(), db.atomic():
        for start in range(0, len(rows), 1000):
            Project.insert_many(rows[start:start + 1000]).execute()
    with db.connection_context():  # the planner's statistics, as autovacuum keeps them for a store in service
        db.execute_sql("ANALYZE")
    db.close_all()
    return url


def count(url: str, sql: str) -> int:
    import psycopg2

    with psycopg2.connect(url) as connection, connection.cursor() as cursor:
        cursor.execute(sql)
        value = cursor.fetchone()[0]
    connection.close()
    return value


def purge(broker_url: str) -> None:
    from anitrack_core.scale.app import check_queue, make_app

    with make_app(broker_url).connection_for_write() as connection:
        check_queue()(connection.default_channel).declare()
        check_queue()(connection.default_channel).purge()


# ---- the runs ----

def children_cpu() -> tuple[float, float]:
    """CPU seconds of the bench's children that have exited: (user + system, system)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime, usage.ru_stime


def postgres_cpu(server: object) -> float:
    """CPU seconds of the bench's PostgreSQL: its postmaster and its processes, with those that have exited."""
    stats = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text, cmdline = stat.read_text(), (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        fields = text.rsplit(")", 1)[1].split()
        stats[int(stat.parent.name)] = (int(fields[1]), cmdline, sum(int(x) for x in fields[11:15]))
    postmaster = next((pid for pid, (_, cmdline, _) in stats.items()
                       if cmdline.split(b"\0")[0].endswith(b"/postgres") and str(server.data_dir).encode() in cmdline),
                      None)
    total = sum(ticks for pid, (parent, _, ticks) in stats.items() if postmaster in (pid, parent))
    return total / os.sysconf("SC_CLK_TCK")


def environment(url: str, broker_url: str, data: Path, settings: list[str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANITRACK_")}
    env.update({"ANITRACK_DATABASE_URL": url, "ANITRACK_BROKER_URL": broker_url, "ANITRACK_DATA_DIR": str(data),
                "ANITRACK_ALLOW_PRIVATE_UPSTREAMS": "1", "ANITRACK_USE_FEEDS": "0"})
    for setting in settings:  # NAME=VALUE: scale.concurrency=32 is ANITRACK_SCALE_CONCURRENCY=32
        name, _, value = setting.partition("=")
        env["ANITRACK_" + name.replace(".", "_").upper()] = value
    return env


def run_inprocess(env: dict[str, str], spy: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run([*spy, ANITRACK, "check", "--all"], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def run_workers(env: dict[str, str], url: str, workers: int, projects: int, logs: Path,
                spy: Callable[[str, int], list[str]] | None = None, timeline_wanted: bool = False,
                scheduler_options: tuple[str, ...] = ()) -> float:
    processes, profilers = [], []
    try:
        for n in range(workers):
            log = open(logs / f"worker{n}.log", "wb")
            processes.append(subprocess.Popen([ANITRACK, "worker", "--loglevel", "WARNING"], env=env, stdout=log,
                                              stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 60
        while count(url, "SELECT COUNT(*) FROM scale_process WHERE kind = 'worker'") < workers:
            if time.monotonic() > deadline:
                raise SystemExit(f"the workers did not start; see {logs}")
            time.sleep(0.2)
        time.sleep(2)  # the Celery consumers connect
        if spy is not None:
            profilers = [subprocess.Popen(spy(f"worker{n}", process.pid), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL) for n, process in enumerate(processes)]
            time.sleep(1)
        log = open(logs / "scheduler.log", "wb")
        started = time.perf_counter()
        processes.append(subprocess.Popen([ANITRACK, "scheduler", *scheduler_options], env=env, stdout=log,
                                          stderr=subprocess.STDOUT))
        # the workers' pass records count the checks saved (a cheap poll: counting the projects not checked yet
        # cost PostgreSQL about 1 ms of CPU per check, a third of what the workers made it spend)
        timeline, mark = [], started
        while (done := count(url, "SELECT COALESCE(SUM(total_count), 0) FROM run")) < projects:
            if time.perf_counter() - started > 600:
                raise SystemExit(f"not done after 600 s; see {logs}")
            if timeline_wanted and time.perf_counter() - mark >= 1:
                mark = time.perf_counter(); timeline.append(f"{mark - started:.1f}s:{done}")
            time.sleep(0.1)
        if timeline:
            print("  checks saved by the workers, second by second: " + " ".join(timeline), flush=True)
        return time.perf_counter() - started
    finally:
        for profiler in profilers:  # py-spy writes its samples on SIGINT
            profiler.send_signal(signal.SIGINT)
        for profiler in profilers:
            profiler.wait(timeout=60)
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def verify(url: str, projects: int) -> str:
    stored = count(url, "SELECT COUNT(*) FROM project_version")
    events = count(url, "SELECT COUNT(*) FROM outbox_event")
    return "ok" if (stored, events) == (3 * projects, 2 * projects) else f"BAD: {stored} versions, {events} events"


def main() -> None:
    from checks import PROFILE_RATE, cpu_busy_seconds, own_cpu_seconds, profile_text, wait_for_quiet  # bench/checks.py

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", type=int, default=10_000)
    parser.add_argument("--latency", default="0.1,0", help="upstream latencies in seconds (comma-separated)")
    parser.add_argument("--workers", default="1,2,4", help="worker process counts (comma-separated)")
    parser.add_argument("--broker", choices=("redis", "rabbitmq"), default="redis")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting for every mode (repeatable), e.g. check_per_host=8; the issue's figures "
                             "use the defaults")
    parser.add_argument("--batch-size", type=int, help="projects per batch (`anitrack scheduler --batch-size`; "
                        "default: its own)")
    parser.add_argument("--timeline", action="store_true",
                        help="print the checks the workers saved each second (the ramp at the start, the tail)")
    parser.add_argument("--py-spy", metavar="BIN", help="profile the engine processes with this py-spy (samples "
                        "holding the GIL; pip install py-spy) and print where their time goes; slows them")
    parser.add_argument("--wait-idle", type=float, default=120.0, metavar="S",
                        help="before each run, wait up to S seconds for the rest of the machine to be idle "
                             "(default %(default)s; 0: do not wait)")
    args = parser.parse_args()
    postgres, broker = start_postgres(), start_broker(args.broker)
    results, profiles, texts = [], [], []
    try:
        with tempfile.TemporaryDirectory(prefix="anitrack-scale-") as tmp:
            for latency in [float(x) for x in args.latency.split(",")]:
                upstream, port = start_upstream(latency)
                try:
                    for mode in ["check --all"] + [f"{w} worker(s)" for w in args.workers.split(",")]:
                        url = fresh_database(postgres, args.projects, port)
                        purge(broker.url)
                        run_dir = Path(tmp) / f"{latency}-{mode.split()[0]}"
                        (run_dir / "data").mkdir(parents=True)
                        env = environment(url, broker.url, run_dir / "data", args.set)
                        if args.wait_idle > 0:
                            wait_for_quiet(args.wait_idle, f"latency {latency}, {mode}")
                        cpu, pg_cpu, busy = children_cpu(), postgres_cpu(postgres), cpu_busy_seconds()
                        own, wall = own_cpu_seconds(), time.perf_counter()
                        def spy(name: str, pid: int | None = None) -> list[str]:
                            if not args.py_spy:
                                return []
                            raw = run_dir / f"{name}.profile"
                            profiles.append((f"latency {latency * 1000:.0f} ms, {mode}, {name}", raw))
                            return [args.py_spy, "record", "--format", "raw", "-o", str(raw), "--rate",
                                    str(PROFILE_RATE), "--nonblocking", "--subprocesses", "--gil",
                                    *(["--pid", str(pid)] if pid else ["--"])]

                        if mode == "check --all":
                            seconds = run_inprocess(env, spy("check"))
                        else:
                            seconds = run_workers(env, url, int(mode.split()[0]), args.projects, run_dir,
                                                  spy if args.py_spy else None, args.timeline,
                                                  ("--batch-size", str(args.batch_size)) if args.batch_size else ())
                        (cpu_s, sys_s), pg_s = [a - b for a, b in zip(children_cpu(), cpu)], postgres_cpu(postgres) - pg_cpu
                        # what the rest of the machine used meanwhile (other people's work; the broker's too)
                        others = ((cpu_busy_seconds() - busy - cpu_s - pg_s - (own_cpu_seconds() - own))
                                  / (time.perf_counter() - wall))
                        cpu_ms, pg_ms = cpu_s * 1000 / args.projects, pg_s * 1000 / args.projects
                        rate = args.projects / seconds
                        results.append((latency, mode, seconds, rate, verify(url, args.projects)))
                        texts += [profile_text(label, raw, seconds, True) for label, raw in profiles]
                        profiles.clear()
                        print(f"latency {latency * 1000:.0f} ms, {mode:<12} {seconds:7.1f} s  {rate:7.0f} checks/s  "
                              f"CPU/check: {cpu_ms:4.1f} ms anitrack ({sys_s * 1000 / args.projects:3.1f} system), {pg_ms:4.1f} ms PostgreSQL; other CPU {max(0.0, others):.2f} "
                              f"cores  {results[-1][4]}", flush=True)
                finally:
                    upstream.terminate()
                    upstream.wait()
    finally:
        broker.stop()
        postgres.stop()
    print(f"\n{args.projects} projects on {HOSTS} loopback hosts, PostgreSQL, {args.broker}, {os.cpu_count()} CPUs")
    print(f"{'latency':>8} {'mode':<13} {'seconds':>8} {'checks/s':>9} {'vs 1 worker':>12} {'vs check --all':>15}")
    for latency, mode, seconds, rate, state in results:
        one = next((r[3] for r in results if r[0] == latency and r[1] == "1 worker(s)"), None)
        inproc = next(r[3] for r in results if r[0] == latency and r[1] == "check --all")
        workers = int(mode.split()[0]) if mode[0].isdigit() else None
        efficiency = f"{rate / (one * workers):.0%}" if workers and one else ""
        print(f"{latency * 1000:>6.0f}ms {mode:<13} {seconds:>8.1f} {rate:>9.0f} {efficiency:>12} "
              f"{rate / inproc:>14.0%}  {state}")
    for text in texts:
        print()
        print(text)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), float(sys.argv[3]))
    else:
        sys.path.insert(0, str(REPO))
        main()
