"""A fast fake upstream on loopback for bench/checks.py: nginx, else a Python server.

    /work/venv/bin/python bench/upstream.py serve ROOT PORT LOG LATENCY [ADDRESS ...]   # the Python server

One HTML page per project, ``/p/<n>/`` (an ``index.html``), lists five tarballs
``proj<n>-1.0.tar.gz`` ... ``proj<n>-1.4.tar.gz``, one link per line, which
anitrack's default regex finds for a project named ``proj<n>``.

:class:`Upstream` serves them.  With nginx (``apt-get install nginx-light``) it
writes a config into its temporary directory (``worker_processes 1``, ``daemon
off``, ``etag on``, ``if_modified_since before``, a very high
``keepalive_requests``, pid, error log and temp paths in the directory) and
runs nginx as a child process.  Without nginx it runs the Python fallback
(``ThreadingHTTPServer``, HTTP/1.1 keep-alive, ETag / Last-Modified and 304s)
in a child process; it is slower than anitrack and then the bottleneck.  Only
the Python server can answer after a delay (*latency*, as real upstreams do);
asking for one chooses it.

Every answer's status is written, one per line, to an access log, so a caller
can count the 200s and 304s of each phase (:meth:`Upstream.statuses`).  The
projects can be spread over several loopback addresses (127.0.0.1,
127.0.0.2, ...), because anitrack limits the checks in flight per host.
"""

from __future__ import annotations

import collections
import email.utils
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout: the test servers' free-port helper

from tests.servers import free_port  # noqa: E402

VERSIONS_PER_PROJECT = 5
_PAGE = """<!DOCTYPE html>
<html>
<head><title>proj{n} downloads</title></head>
<body>
<h1>Releases of proj{n}</h1>
<p>Source tarballs of proj{n}, newest last. Checksums are on the release notes page.</p>
<ul>
{links}
</ul>
<p><a href="../">All projects</a></p>
</body>
</html>
"""


def project_name(n: int) -> str:
    return f"proj{n}"


def expected_versions(n: int) -> list[str]:
    return [f"1.{k}" for k in range(VERSIONS_PER_PROJECT)]


def page(n: int) -> str:
    links = "\n".join(f'<li><a href="proj{n}-1.{k}.tar.gz">proj{n} 1.{k}</a></li>'
                      for k in range(VERSIONS_PER_PROJECT))
    return _PAGE.format(n=n, links=links)


def pypi_json(n: int) -> str:
    """The JSON API answer of ``proj<n>`` (PyPI's shape: ``info`` and ``releases``)."""
    releases = {version: [{"filename": f"proj{n}-{version}.tar.gz", "yanked": False}]
                for version in expected_versions(n)}
    return json.dumps({"info": {"name": project_name(n), "version": expected_versions(n)[-1]},
                       "releases": releases})


def write_site(root: Path, projects: int) -> None:
    """``root/p/<n>/index.html`` for n in 1..projects."""
    for n in range(1, projects + 1):
        folder = root / "p" / str(n)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "index.html").write_text(page(n), encoding="utf-8")


def loopback_addresses(count: int) -> list[str]:
    """127.0.0.1, 127.0.0.2, ... (all of 127.0.0.0/8 is loopback on Linux)."""
    if not 1 <= count <= 250:
        raise ValueError("between 1 and 250 loopback addresses")
    return [f"127.0.0.{i}" for i in range(1, count + 1)]


_NGINX_CONF = """\
worker_processes 1;
daemon off;
master_process on;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
{user}
events {{
    worker_connections 4096;
}}
http {{
    default_type application/octet-stream;
    types {{ text/html html; }}
    charset utf-8;
    sendfile on;
    tcp_nodelay on;
    server_tokens off;
    client_body_temp_path {dir}/tmp-body;
    proxy_temp_path {dir}/tmp-proxy;
    fastcgi_temp_path {dir}/tmp-fastcgi;
    uwsgi_temp_path {dir}/tmp-uwsgi;
    scgi_temp_path {dir}/tmp-scgi;
    log_format status_only '$status';
    access_log off;
    server {{
{listen}
        root {root};
        etag on;
        if_modified_since before;
        keepalive_requests 10000000;
        keepalive_timeout 300s;
        access_log {log} status_only;
        location / {{
            index index.html;
        }}
    }}
}}
"""


class Upstream:
    """The fake upstream, as a context manager.

    :param root: the directory of the site (see :func:`write_site`), readable by nginx's worker.
    :param workdir: where the config, logs and pid go.
    :param server: ``auto`` (nginx if installed), ``nginx`` or ``python``.
    :param hosts: how many loopback addresses to listen on.
    :param latency: seconds every answer waits (the Python server only).
    """

    def __init__(self, root: Path, workdir: Path, *, server: str = "auto", hosts: int = 1,
                 latency: float = 0.0) -> None:
        self.root, self.workdir = root, workdir
        self.addresses = loopback_addresses(hosts)
        self.port = free_port()
        self.log = workdir / "access.log"
        self.nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
        if server == "nginx" and not self.nginx:
            raise SystemExit("nginx is not installed: apt-get update && apt-get install -y nginx-light")
        if server == "nginx" and latency:
            raise SystemExit("nginx cannot answer after a delay: use the Python server for --latency")
        self.kind = "nginx" if (server in ("auto", "nginx") and self.nginx and not latency) else "python"
        self.latency = latency
        self.version = ""
        self.proc: subprocess.Popen[bytes] | None = None
        self._log_offset = 0

    def url(self, n: int) -> str:
        """The page of project *n*, on the loopback address it is spread to."""
        address = self.addresses[(n - 1) % len(self.addresses)]
        return f"http://{address}:{self.port}/p/{n}/"

    @property
    def pypi_url(self) -> str:
        """Where the PyPI-shaped JSON API is (``pypi.url``): the first address."""
        return f"http://{self.addresses[0]}:{self.port}"

    def __enter__(self) -> Upstream:
        self.log.touch()
        if self.kind == "nginx":
            self._start_nginx()
        else:
            command = [sys.executable, str(Path(__file__).resolve()), "serve", str(self.root), str(self.port),
                       str(self.log), str(self.latency), *self.addresses]
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=open(self.workdir / "python-server.log", "wb"))
            self.version = f"Python {sys.version.split()[0]} ThreadingHTTPServer" + (
                f", answering after {1000 * self.latency:g} ms" if self.latency else "")
        self._wait_ready()
        return self

    def _start_nginx(self) -> None:
        assert self.nginx
        out = subprocess.run([self.nginx, "-v"], capture_output=True, text=True, timeout=10)
        self.version = (out.stderr or out.stdout).strip().replace("nginx version: ", "")
        listen = "\n".join(f"        listen {address}:{self.port};" for address in self.addresses)
        # as root, the master opens files and workers run as `user`; the site is made world-readable
        user = "user nobody nogroup;" if os.geteuid() == 0 else ""
        conf = _NGINX_CONF.format(dir=self.workdir, root=self.root, listen=listen, log=self.log, user=user)
        path = self.workdir / "nginx.conf"
        path.write_text(conf)
        check = subprocess.run([self.nginx, "-t", "-q", "-c", str(path), "-p", str(self.workdir)],
                               capture_output=True, text=True, timeout=30)
        if check.returncode != 0:
            raise SystemExit(f"nginx refused the generated config {path}:\n{check.stderr}")
        self.proc = subprocess.Popen([self.nginx, "-c", str(path), "-p", str(self.workdir)],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.workdir / "nginx-stderr.log", "wb"))

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc and self.proc.poll() is not None:
                raise SystemExit(f"the {self.kind} upstream exited at start (see {self.workdir})")
            try:
                for address in self.addresses:
                    socket.create_connection((address, self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit(f"the {self.kind} upstream did not start listening within 15 s")

    def statuses(self) -> collections.Counter[str]:
        """The statuses answered since the previous call (counts by status code)."""
        time.sleep(0.05)  # nginx writes the line after the answer
        with open(self.log, "rb") as fh:
            fh.seek(self._log_offset)
            data = fh.read()
        complete = data[: data.rfind(b"\n") + 1]
        self._log_offset += len(complete)
        return collections.Counter(line for line in complete.decode().split("\n") if line)

    def children(self) -> list[int]:
        """Pids of the server's own children (nginx's worker)."""
        if not self.proc:
            return []
        try:
            text = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
        except OSError:
            return []
        return [int(pid) for pid in text.split()]

    def cpu_seconds(self) -> float:
        """CPU time used so far by the server process and its children (nginx's worker)."""
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for pid in ([self.proc.pid] if self.proc else []) + self.children():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        return total

    def __exit__(self, *exc_info: object) -> None:
        if not self.proc or self.proc.poll() is not None:
            return
        workers = self.children()
        self.proc.send_signal(signal.SIGTERM if self.kind == "nginx" else signal.SIGINT)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for pid in workers:  # only our nginx's own workers, by pid, if the master left them behind
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


# ---- the Python fallback server (run in its own process) ----


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: Nagle + delayed ACK would cost 40 ms
    pages: dict[str, tuple[bytes, str, str]] = {}
    latency = 0.0
    log_file = None
    log_lock = threading.Lock()

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        path = self.path.split("?", 1)[0]
        if path.endswith("/"):
            path += "index.html"
        found = self.pages.get(path)
        if self.latency:
            time.sleep(self.latency)
        if found is None:
            self._answer(404, b"not found\n", {})
            return
        kind = "application/json" if path.startswith("/pypi/") else "text/html; charset=utf-8"
        body, etag, modified = found
        headers = {"ETag": etag, "Last-Modified": modified}
        if self.headers.get("If-None-Match") == etag or (
                not self.headers.get("If-None-Match") and self.headers.get("If-Modified-Since") == modified):
            self._answer(304, b"", headers)
            return
        self._answer(200, body, headers, kind)

    def _answer(self, status: int, body: bytes, headers: dict[str, str],
                kind: str = "text/html; charset=utf-8") -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)
        with self.log_lock:
            self.log_file.write(f"{status}\n")
            self.log_file.flush()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def _serve(root: Path, port: int, log: Path, latency: float, addresses: list[str]) -> None:
    def add(path: str, body: bytes, mtime: float) -> None:
        etag = '"' + hashlib.md5(body).hexdigest()[:16] + '"'
        _Handler.pages[path] = (body, etag, email.utils.formatdate(mtime, usegmt=True))

    for file in root.rglob("index.html"):
        mtime = file.stat().st_mtime
        add("/" + str(file.relative_to(root)), file.read_bytes(), mtime)
        n = int(file.parent.name)
        add(f"/pypi/{project_name(n)}/json", pypi_json(n).encode(), mtime)
    _Handler.latency = latency
    _Handler.log_file = open(log, "a", encoding="ascii")
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.request_queue_size = 256
    servers = [ThreadingHTTPServer((address, port), _Handler) for address in addresses]
    for server in servers[1:]:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        servers[0].serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    if len(sys.argv) < 6 or sys.argv[1] != "serve":
        raise SystemExit(__doc__.splitlines()[2].strip())
    _serve(Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]), float(sys.argv[5]), sys.argv[6:] or ["127.0.0.1"])
