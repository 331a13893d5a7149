"""Real database servers for the test suite, started and stopped by the tests.

:class:`PostgresServer` runs a throwaway PostgreSQL server from the binaries of
Debian's ``postgresql`` package: a fresh cluster in a temporary directory,
listening on a free TCP port of 127.0.0.1 only (its unix socket sits in the
data directory), trusted without a password, stopped and deleted on exit::

    with PostgresServer() as server:
        url = server.create_database("test_one")   # 0.03-0.3 s each
        ...                                        # connect to url

One server per test session is the intended use; a database per test is cheap.

:class:`RabbitMQServer` and :class:`RedisServer` do the same for the message
brokers (Debian packages ``rabbitmq-server`` and ``redis-server``): a
throwaway server in a temporary directory on free loopback ports, with
``halt()`` / ``restart()`` to stage a broker outage, and ``url`` for kombu.
PostgreSQL refuses to run as root, so when the tests run as root the server
runs as the unprivileged ``postgres`` user that the Debian package creates.

:exc:`ServerUnavailable` means something is not installed: outside CI a test
may skip on it, in CI (see :func:`in_ci`) it must fail. :exc:`ServerError`
means the server is installed but misbehaved, which is never a reason to skip.

This module uses the standard library only; databases are created with the
server's own ``psql``, so no Python driver is needed here.
"""

from __future__ import annotations

import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = [
    "PG_BIN_ENV",
    "PostgresServer",
    "RabbitMQServer",
    "RedisServer",
    "ServerError",
    "ServerUnavailable",
    "find_postgres_bin",
    "find_rabbitmq_server",
    "in_ci",
]

PG_BIN_ENV = "ANITRACK_PG_BIN"
"""Environment variable naming the directory of the PostgreSQL binaries to use."""

DEBIAN_PG_ROOT = Path("/usr/lib/postgresql")
"""Where Debian installs each major version's binaries, as ``<version>/bin``."""

REQUIRED_BINARIES = ("initdb", "pg_ctl", "postgres", "psql")
SERVER_OS_USER = "postgres"
INSTALL_HINT = "install Debian package 'postgresql' (apt-get install -y postgresql)"

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_SOCKET_PATH_MAX = 107  # sun_path is 108 bytes, with its terminating NUL
_SHM_MIN_FREE = 1 << 30  # use /dev/shm only with this much room

# Run by a helper process that outlives the test process if that is killed:
# EOF on stdin without the word "done" means the parent died without stopping
# the server, so stop it (argv[2:]) and remove the directory (argv[1]).
_WATCHDOG = """
import shutil, subprocess, sys
if sys.stdin.buffer.read() != b"done":
    try:
        subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    finally:
        shutil.rmtree(sys.argv[1], ignore_errors=True)
"""


class ServerUnavailable(Exception):
    """The server cannot run here because something is not installed.

    The message says what is missing and how to install it.
    """


class ServerError(RuntimeError):
    """The server is installed but failed to start, answer or stop."""


def in_ci() -> bool:
    """Tell whether we run in CI: env var ``CI`` set to anything but 0/false/no."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _missing_binaries(bin_dir: Path) -> list[str]:
    """Return the names of REQUIRED_BINARIES not executable in ``bin_dir``."""
    return [
        name
        for name in REQUIRED_BINARIES
        if not ((bin_dir / name).is_file() and os.access(bin_dir / name, os.X_OK))
    ]


def _version_key(bin_dir: Path) -> tuple[int, ...]:
    """Sort key of ``/usr/lib/postgresql/<version>/bin``: 15 -> (15,), 9.6 -> (9, 6)."""
    try:
        return tuple(int(part) for part in bin_dir.parent.name.split("."))
    except ValueError:
        return (-1,)


def find_postgres_bin() -> Path:
    """Return the directory holding initdb, pg_ctl, postgres and psql.

    ``$ANITRACK_PG_BIN`` wins when set (and must then be complete); otherwise the
    highest version under ``/usr/lib/postgresql/*/bin``, then the directory of
    ``initdb`` on PATH. Raises :exc:`ServerUnavailable` when none is complete.
    """
    required = ", ".join(REQUIRED_BINARIES)
    override = os.environ.get(PG_BIN_ENV)
    if override:
        missing = _missing_binaries(Path(override))
        if missing:
            raise ServerUnavailable(
                f"{PG_BIN_ENV}={override} lacks the PostgreSQL binaries {', '.join(missing)}; "
                f"point it at a directory holding {required}, or unset it to use "
                f"{DEBIAN_PG_ROOT}/*/bin after you {INSTALL_HINT}"
            )
        return Path(override)
    incomplete: list[str] = []
    for bin_dir in sorted(DEBIAN_PG_ROOT.glob("*/bin"), key=_version_key, reverse=True):
        missing = _missing_binaries(bin_dir)
        if not missing:
            return bin_dir
        incomplete.append(f"{bin_dir} lacks {', '.join(missing)}")
    initdb = shutil.which("initdb")
    if initdb:
        bin_dir = Path(initdb).parent
        missing = _missing_binaries(bin_dir)
        if not missing:
            return bin_dir
        incomplete.append(f"{bin_dir} lacks {', '.join(missing)}")
    found = f" ({'; '.join(incomplete)})" if incomplete else ""
    raise ServerUnavailable(
        f"PostgreSQL server binaries not found (looked in {DEBIAN_PG_ROOT}/*/bin and on "
        f"PATH for {required}){found}; {INSTALL_HINT}, or set {PG_BIN_ENV} to their directory"
    )


def _server_user() -> tuple[list[str], pwd.struct_passwd | None]:
    """Return the command prefix that runs initdb/pg_ctl, and the OS user it runs as.

    Not root: no prefix, run as ourselves. Root: run as ``postgres`` through
    ``setpriv`` (no PAM, environment kept) or else ``runuser``.
    """
    if os.geteuid() != 0:
        return [], None
    try:
        user = pwd.getpwnam(SERVER_OS_USER)
    except KeyError:
        raise ServerUnavailable(
            f"running as root, which PostgreSQL refuses, and there is no OS user "
            f"'{SERVER_OS_USER}' to run it as; {INSTALL_HINT}, which creates that user"
        ) from None
    setpriv = shutil.which("setpriv") or shutil.which("setpriv", path="/usr/bin:/bin")
    if setpriv:
        ids = [f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups"]
        return [setpriv, *ids, "--"], user
    runuser = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin")
    if runuser:
        return [runuser, "-u", SERVER_OS_USER, "--"], user
    raise ServerUnavailable(
        f"running as root, which PostgreSQL refuses, and neither setpriv nor runuser is "
        f"there to switch to user '{SERVER_OS_USER}'; install Debian package 'util-linux'"
    )


def _clean_env() -> dict[str, str]:
    """Our environment without PG* variables (PGHOST, PGPORT, ... would redirect psql)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
    env["LC_ALL"] = "C"  # English, parseable messages from initdb and pg_ctl
    return env


def _check_name(name: str, what: str = "database name") -> str:
    """Return ``name`` if it is a plain SQL identifier, else raise ValueError."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"{what} {name!r} must match {_NAME.pattern} (letters, digits, _)")
    return name


def free_port(host: str) -> int:
    """Return a TCP port on ``host`` that is free now (it may be taken again later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _port_open(host: str, port: int) -> bool:
    """Tell whether something accepts TCP connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def _default_parent(os_user: pwd.struct_passwd | None) -> Path:
    """Where to make the server's directory when no base_dir is given.

    /dev/shm when it is a shared (mode 1777) RAM disk with at least 1 GiB free:
    initdb and CREATE DATABASE run 3-10 times faster there than on a disk.
    Else /tmp when root (reachable by user 'postgres', unlike a $TMPDIR under
    /root), else the usual temp dir.
    """
    shm = Path("/dev/shm")
    try:
        fs = os.statvfs(shm)
        free = fs.f_bavail * fs.f_frsize
        shared = stat.S_IMODE(shm.stat().st_mode) == 0o1777
    except OSError:
        free, shared = 0, False
    if shared and free >= _SHM_MIN_FREE and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return Path("/tmp") if os_user is not None else Path(tempfile.gettempdir())


def _conf_quote(value: str) -> str:
    """Quote ``value`` as a postgresql.conf string."""
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


class PostgresServer:
    """A throwaway PostgreSQL server on 127.0.0.1, for the duration of a ``with``.

    ``base_dir`` is where its temporary directory is made (default: /dev/shm
    if it is a roomy RAM disk, else /tmp when root, else the usual temp dir).
    Its path must stay short (the unix socket lives there) and, when running
    as root, every parent of it must be searchable by user ``postgres``.
    On entry it creates database ``database``, whose URL is :attr:`url`;
    :meth:`start` and :meth:`stop` do the same as entry and exit.
    """

    host = "127.0.0.1"

    def __init__(
        self,
        base_dir: Path | None = None,
        *,
        database: str = "anitrack",
        user: str = "postgres",
        start_timeout: float = 30.0,
    ) -> None:
        self.base_dir = base_dir
        self.database = _check_name(database)
        self.user = _check_name(user, "user name")
        self.start_timeout = start_timeout
        self.port: int | None = None
        self.bin_dir: Path | None = None
        self.root_dir: Path | None = None
        self._prefix: list[str] = []
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._running = False

    # -- public API ---------------------------------------------------------

    @property
    def data_dir(self) -> Path:
        """The cluster's data directory (also holds the unix socket)."""
        return self._root() / "data"

    @property
    def log_path(self) -> Path:
        """The server's log file."""
        return self._root() / "server.log"

    @property
    def url(self) -> str:
        """URL of the database created on start."""
        return self.url_for(self.database)

    def url_for(self, name: str) -> str:
        """Return the URL of database ``name`` on this server."""
        self._require_running()
        return f"postgresql://{self.user}@{self.host}:{self.port}/{_check_name(name)}"

    def create_database(self, name: str, template: str = "template0") -> str:
        """Create database ``name`` as a copy of ``template`` and return its URL.

        The template must have no open connections while it is copied.
        """
        _check_name(name)
        _check_name(template, "template name")
        self.psql(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        return self.url_for(name)

    def drop_database(self, name: str) -> None:
        """Drop database ``name`` if it exists, closing its open connections."""
        self.psql(f'DROP DATABASE IF EXISTS "{_check_name(name)}" WITH (FORCE)')

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run ``sql`` with psql as the superuser and return its unaligned output."""
        self._require_running()
        command = [
            str(self._bin("psql")), "-X", "-w", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
            "-h", self.host, "-p", str(self.port), "-U", self.user,
            "-d", _check_name(database), "-c", sql,
        ]
        return self._run(command).stdout.strip()

    def start(self) -> PostgresServer:
        """Make the cluster, start the server and create :attr:`database`."""
        if self._running or self.root_dir is not None:
            raise RuntimeError("this PostgresServer was already started; make a new one")
        self.bin_dir = find_postgres_bin()
        self._prefix, os_user = _server_user()
        try:
            self.root_dir = self._make_root_dir(os_user)
            self._start_watchdog()
            self._initdb()
            self._start_server()
            self._running = True
            self.create_database(self.database)
        except BaseException:
            self._shutdown()
            raise
        return self

    def stop(self) -> None:
        """Stop the server (immediate mode) and remove its directory."""
        if self.root_dir is not None:
            self._shutdown()

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"{self.host}:{self.port}" if self._running else "stopped"
        return f"<PostgresServer {state} {self.root_dir}>"

    # -- steps --------------------------------------------------------------

    def _make_root_dir(self, os_user: pwd.struct_passwd | None) -> Path:
        """Make the throwaway directory, owned by the OS user the server runs as."""
        parent = Path(self.base_dir) if self.base_dir is not None else _default_parent(os_user)
        root = Path(tempfile.mkdtemp(prefix="anitrack-pg-", dir=parent)).resolve()
        self.root_dir = root
        socket_path = root / "data" / ".s.PGSQL.65535"
        if len(os.fsencode(socket_path)) > _SOCKET_PATH_MAX:
            raise ServerError(
                f"the server's unix socket path {socket_path} would pass {_SOCKET_PATH_MAX} "
                f"bytes; use a shorter base_dir (e.g. /tmp)"
            )
        if os_user is not None:
            os.chown(root, os_user.pw_uid, os_user.pw_gid)
            reach = self._run([*self._prefix, "test", "-w", str(root)], check=False)
            if reach.returncode != 0:
                raise ServerError(
                    f"OS user '{os_user.pw_name}', which runs the server because we are "
                    f"root, cannot write {root}: every parent of it must be searchable by "
                    f"that user; use a base_dir under /tmp"
                )
        return root

    def _start_watchdog(self) -> None:
        """Start the helper that stops the server if this process dies first."""
        stop = self._stop_command(timeout=30)
        self._watchdog = subprocess.Popen(
            [sys.executable, "-I", "-c", _WATCHDOG, str(self._root()), *stop],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_clean_env(),
            cwd="/",
            start_new_session=True,  # outlives Ctrl-C and a kill of our process group
        )

    def _initdb(self) -> None:
        """Make the cluster (trust auth, UTF-8, locale C.UTF-8 or else C) and configure it."""
        for locale in ("C.UTF-8", "C"):
            result = self._run(
                [
                    str(self._bin("initdb")), "-D", str(self.data_dir), "-U", self.user,
                    "-A", "trust", "-E", "UTF8", f"--locale={locale}", "--no-sync",
                ],
                as_server=True,
                check=False,
                timeout=120,
            )
            if result.returncode == 0:
                break
            output = result.stdout + result.stderr
            if locale == "C" or "locale" not in output.lower():
                raise ServerError(f"initdb failed with exit code {result.returncode}:\n{output}")
        settings = {
            "listen_addresses": _conf_quote(self.host),
            "unix_socket_directories": _conf_quote(str(self.data_dir)),
            "fsync": "off",  # a throwaway server: speed over crash safety
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "timezone": "'UTC'",
        }
        with open(self.data_dir / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write("\n# anitrack_core.testing_servers: throwaway test server\n")
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())

    def _start_server(self, tries: int = 5) -> None:
        """Start on a free port, trying another when the chosen one got taken meanwhile."""
        for _ in range(tries):
            self.port = free_port(self.host)
            log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
            deadline = time.monotonic() + self.start_timeout
            result = self._run(
                [
                    str(self._bin("pg_ctl")), "start", "-D", str(self.data_dir),
                    "-l", str(self.log_path), "-w", "-t", str(max(1, int(self.start_timeout))),
                    "-o", f"-p {self.port}",
                ],
                as_server=True,
                check=False,
                timeout=self.start_timeout + 15,
            )
            log = self._read_log(log_start)
            if result.returncode == 0:
                while not _port_open(self.host, self.port):
                    if time.monotonic() > deadline:
                        raise ServerError(
                            f"PostgreSQL started but does not accept connections on "
                            f"{self.host}:{self.port} after {self.start_timeout:.0f} s; log:\n{log}"
                        )
                    time.sleep(0.05)
                return
            self._stop_server()
            if "Address already in use" not in log:
                raise ServerError(
                    f"pg_ctl start failed with exit code {result.returncode}:\n"
                    f"{result.stdout}{result.stderr}\nserver log {self.log_path}:\n{log}"
                )
        raise ServerError(f"no free TCP port on {self.host} after {tries} tries")

    def _shutdown(self) -> None:
        """Stop the server, remove the directory, then dismiss the watchdog."""
        done = False
        try:
            if self.root_dir is not None:
                self._stop_server()
                shutil.rmtree(self.root_dir, ignore_errors=True)
                if self.root_dir.exists():
                    raise ServerError(f"could not remove the server's directory {self.root_dir}")
            done = True
        finally:
            self._running = False
            self._dismiss_watchdog(done)

    def _dismiss_watchdog(self, done: bool) -> None:
        """Tell the watchdog we cleaned up (``done``), or leave the clean-up to it."""
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is None or watchdog.stdin is None:
            return
        try:
            if done:
                watchdog.stdin.write(b"done")
            watchdog.stdin.close()  # EOF: without "done" it stops the server and removes the dir
            if done:
                watchdog.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass

    def _stop_server(self) -> None:
        """Stop the server, if it runs, with pg_ctl stop -m immediate."""
        if not (self.data_dir / "postmaster.pid").exists():
            return
        result = self._run(self._stop_command(timeout=30), check=False, timeout=45)
        if result.returncode != 0 and self.port is not None and _port_open(self.host, self.port):
            raise ServerError(
                f"pg_ctl stop failed with exit code {result.returncode} and the server still "
                f"listens on {self.host}:{self.port}:\n{result.stdout}{result.stderr}"
            )

    # -- helpers ------------------------------------------------------------

    def _stop_command(self, timeout: int) -> list[str]:
        """The command that stops the server at once, run as the server's user."""
        pg_ctl = str(self._bin("pg_ctl"))
        stop = ["stop", "-D", str(self.data_dir), "-m", "immediate", "-w", "-t", str(timeout)]
        return [*self._prefix, pg_ctl, *stop]

    def _run(
        self,
        command: list[str],
        *,
        as_server: bool = False,
        check: bool = True,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``command`` (as the server's OS user if ``as_server``), capturing output."""
        full = [*self._prefix, *command] if as_server else command
        try:
            result = subprocess.run(
                full,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="replace",
                env=_clean_env(),
                cwd=self.root_dir if self.root_dir and self.root_dir.exists() else "/",
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as exc:
            raise ServerError(f"timed out after {timeout:.0f} s: {shlex.join(full)}") from exc
        if check and result.returncode != 0:
            raise ServerError(
                f"exit code {result.returncode} from {shlex.join(full)}:\n"
                f"{result.stdout}{result.stderr}"
            )
        return result

    def _read_log(self, start: int) -> str:
        """Return the server log from byte ``start`` on (empty if there is none)."""
        try:
            with open(self.log_path, "rb") as log:
                log.seek(start)
                return log.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def _bin(self, name: str) -> Path:
        if self.bin_dir is None:
            raise RuntimeError("PostgresServer not started")
        return self.bin_dir / name

    def _root(self) -> Path:
        if self.root_dir is None:
            raise RuntimeError("PostgresServer not started")
        return self.root_dir

    def _require_running(self) -> None:
        if not self._running:
            raise RuntimeError("PostgresServer is not running; use it inside 'with'")


# ---- message brokers -----------------------------------------------------------------------------------

RABBITMQ_SERVER_ENV = "ANITRACK_RABBITMQ_SERVER"
"""Environment variable naming the ``rabbitmq-server`` script to run (default: Debian's)."""

REDIS_SERVER_ENV = "ANITRACK_REDIS_SERVER"
"""Environment variable naming the ``redis-server`` binary to run (default: on PATH)."""

DEBIAN_RABBITMQ_SERVER = Path("/usr/lib/rabbitmq/bin/rabbitmq-server")
"""The real start script; ``/usr/sbin/rabbitmq-server`` is a wrapper that switches to user rabbitmq."""

RABBITMQ_INSTALL_HINT = "install Debian package 'rabbitmq-server' (apt-get install -y rabbitmq-server)"
REDIS_INSTALL_HINT = "install Debian package 'redis-server' (apt-get install -y redis-server)"

# AMQP 0-9-1 protocol header; a broker that is up answers it with a Connection.Start method frame
_AMQP_HEADER = b"AMQP\x00\x00\x09\x01"
_AMQP_METHOD_FRAME = 1

_KILL_GROUP = "import os, signal, sys; os.killpg(int(sys.argv[1]), signal.SIGKILL)"


def _executable(path: str | os.PathLike[str] | None) -> bool:
    return bool(path) and Path(path).is_file() and os.access(path, os.X_OK)  # type: ignore[arg-type]


def _amqp_ready(host: str, port: int) -> bool:
    """Tell whether an AMQP broker answers the protocol header on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=2) as sock:
            sock.sendall(_AMQP_HEADER)
            first = sock.recv(1)
            return first == bytes([_AMQP_METHOD_FRAME])
    except OSError:
        return False


def _redis_ready(host: str, port: int) -> bool:
    """Tell whether a Redis server answers PING with PONG on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=2) as sock:
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class _ProcessServer:
    """A server run as a child process group in a temporary directory, on a free port of 127.0.0.1.

    :meth:`halt` stops the server but keeps its data and port, :meth:`restart`
    starts it again on both (what a broker outage looks like to a client);
    :meth:`stop` ends it and removes the directory.  A watchdog process kills
    the group and removes the directory if the test process dies first.
    """

    host = "127.0.0.1"
    kind = "server"
    ready_probe: Any = None

    def __init__(self, base_dir: Path | None = None, *, start_timeout: float = 60.0) -> None:
        self.base_dir = base_dir
        self.start_timeout = start_timeout
        self.port: int | None = None
        self.root_dir: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None

    # -- to implement --------------------------------------------------------

    def _command(self) -> list[str]:
        raise NotImplementedError

    def _environment(self) -> dict[str, str]:
        return _clean_env()

    def _prepare(self) -> None:
        """Find the binaries (raise ServerUnavailable) and write configuration into root_dir."""

    def _extra_processes(self) -> None:
        """Start helpers the server needs (in the same process group) before it."""

    # -- public API ----------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def log_path(self) -> Path:
        return self._root() / "server.log"

    def start(self) -> _ProcessServer:
        """Make the directory, choose a port and start the server; waits until it answers."""
        if self.root_dir is not None:
            raise RuntimeError(f"this {type(self).__name__} was already started; use restart() or a new one")
        parent = Path(self.base_dir) if self.base_dir is not None else Path(tempfile.gettempdir())
        self.root_dir = Path(tempfile.mkdtemp(prefix=f"anitrack-{self.kind}-", dir=parent)).resolve()
        try:
            self.port = free_port(self.host)
            self._prepare()
            self._launch()
        except BaseException:
            self.stop()
            raise
        return self

    def halt(self, *, kill: bool = False) -> None:
        """Stop the server (SIGTERM, or SIGKILL with *kill*); its data and port are kept for :meth:`restart`."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL if kill else signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        self._kill_group(process.pid)
        deadline = time.monotonic() + 30
        while self.port is not None and _port_open(self.host, self.port) and time.monotonic() < deadline:
            time.sleep(0.1)
        self._dismiss_watchdog(done=True)

    def restart(self) -> None:
        """Start the halted server again, on the same port with the same data."""
        if self.root_dir is None:
            raise RuntimeError(f"{type(self).__name__} was never started")
        self.halt()
        self._launch()

    def stop(self) -> None:
        """Stop the server and remove its directory."""
        try:
            self.halt(kill=True)
        finally:
            if self.root_dir is not None:
                shutil.rmtree(self.root_dir, ignore_errors=True)
            self._dismiss_watchdog(done=True)

    def __enter__(self) -> _ProcessServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"{self.host}:{self.port}" if self.running else "stopped"
        return f"<{type(self).__name__} {state} {self.root_dir}>"

    # -- steps ---------------------------------------------------------------

    def _launch(self) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 (handed to the child)
        try:
            self._process = subprocess.Popen(
                self._command(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env=self._environment(), cwd=self._root(), start_new_session=True)
        finally:
            log.close()
        self._start_watchdog(self._process.pid)
        self._extra_processes()
        deadline = time.monotonic() + self.start_timeout
        while not type(self).ready_probe(self.host, self.port):
            if self._process.poll() is not None:
                code = self._process.returncode
                self.halt()
                raise ServerError(f"{self.kind} exited with code {code} while starting; log:\n{self._log_tail()}")
            if time.monotonic() > deadline:
                self.halt(kill=True)
                raise ServerError(f"{self.kind} did not answer on {self.host}:{self.port} within "
                                  f"{self.start_timeout:.0f} s; log:\n{self._log_tail()}")
            time.sleep(0.1)

    def _start_watchdog(self, pgid: int) -> None:
        self._dismiss_watchdog(done=True)
        stop = [sys.executable, "-I", "-c", _KILL_GROUP, str(pgid)]
        self._watchdog = subprocess.Popen(
            [sys.executable, "-I", "-c", _WATCHDOG, str(self._root()), *stop],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=_clean_env(), cwd="/", start_new_session=True)

    def _dismiss_watchdog(self, done: bool) -> None:
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is None or watchdog.stdin is None:
            return
        try:
            if done:
                watchdog.stdin.write(b"done")
            watchdog.stdin.close()
            watchdog.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass

    @staticmethod
    def _kill_group(pgid: int, timeout: float = 10.0) -> None:
        """Kill whatever is left of the process group (helpers such as epmd) and wait until it is gone."""
        deadline = time.monotonic() + timeout
        try:
            os.killpg(pgid, signal.SIGKILL)
            while time.monotonic() < deadline:
                time.sleep(0.05)
                os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            pass

    def _log_tail(self, size: int = 4000) -> str:
        try:
            return self.log_path.read_bytes()[-size:].decode("utf-8", "replace")
        except OSError:
            return ""

    def _root(self) -> Path:
        if self.root_dir is None:
            raise RuntimeError(f"{type(self).__name__} not started")
        return self.root_dir


def find_rabbitmq_server() -> tuple[Path, Path]:
    """Return the ``rabbitmq-server`` start script and the ``epmd`` binary.

    ``$ANITRACK_RABBITMQ_SERVER`` wins for the script; else Debian's real
    script (not the /usr/sbin wrapper, which switches users and directories).
    Raises :exc:`ServerUnavailable` when either is missing.
    """
    override = os.environ.get(RABBITMQ_SERVER_ENV)
    script = Path(override) if override else DEBIAN_RABBITMQ_SERVER
    if not _executable(script):
        where = f"{RABBITMQ_SERVER_ENV}={override}" if override else str(DEBIAN_RABBITMQ_SERVER)
        raise ServerUnavailable(f"RabbitMQ start script not found ({where}); {RABBITMQ_INSTALL_HINT}, or set "
                                f"{RABBITMQ_SERVER_ENV} to its rabbitmq-server script")
    candidates = [shutil.which("epmd"), *sorted(str(p) for p in Path("/usr/lib/erlang").glob("erts-*/bin/epmd"))]
    epmd = next((Path(c) for c in candidates if _executable(c)), None)
    if epmd is None:
        raise ServerUnavailable(f"Erlang's epmd not found (on PATH or /usr/lib/erlang/erts-*/bin); "
                                f"{RABBITMQ_INSTALL_HINT}")
    return script, epmd


class RabbitMQServer(_ProcessServer):
    """A throwaway RabbitMQ node on 127.0.0.1, from Debian's ``rabbitmq-server`` package.

    Everything it writes (Mnesia database, logs, Erlang cookie) lives in its
    temporary directory; its AMQP port, Erlang distribution port and its own
    epmd port are free loopback ports, so it never meets a system RabbitMQ.
    It runs as the current user (root included).  Starting takes a few
    seconds (bounded by *start_timeout*); :attr:`url` is
    ``amqp://guest:guest@127.0.0.1:<port>//``.
    """

    kind = "rabbitmq"
    ready_probe = staticmethod(_amqp_ready)

    def __init__(self, base_dir: Path | None = None, *, start_timeout: float = 90.0) -> None:
        super().__init__(base_dir, start_timeout=start_timeout)
        self.node_name = f"anitrack-{uuid_hex()}@localhost"
        self.dist_port: int | None = None
        self.epmd_port: int | None = None
        self._script: Path | None = None
        self._epmd: Path | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("RabbitMQServer not started")
        return f"amqp://guest:guest@{self.host}:{self.port}//"

    def _prepare(self) -> None:
        self._script, self._epmd = find_rabbitmq_server()
        self.dist_port = free_port(self.host)
        self.epmd_port = free_port(self.host)
        root = self._root()
        (root / "rabbitmq.conf").write_text(
            f"listeners.tcp.1 = {self.host}:{self.port}\n"
            "loopback_users.guest = true\n"
            "disk_free_limit.absolute = 1MB\n"
            "log.console = false\n"
            "log.file.level = warning\n", encoding="utf-8")
        (root / "enabled_plugins").write_text("[].\n", encoding="utf-8")
        (root / "rabbitmq-env.conf").write_text("", encoding="utf-8")

    def _environment(self) -> dict[str, str]:
        root = self._root()
        env = {key: value for key, value in _clean_env().items()
               if not key.startswith(("RABBITMQ_", "ERL_"))}
        env.update({
            "HOME": str(root),  # the Erlang cookie
            "RABBITMQ_CONF_ENV_FILE": str(root / "rabbitmq-env.conf"),  # not /etc/rabbitmq's
            "RABBITMQ_CONFIG_FILE": str(root / "rabbitmq"),  # .conf is added
            "RABBITMQ_ADVANCED_CONFIG_FILE": str(root / "advanced.config"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(root / "enabled_plugins"),
            "RABBITMQ_NODENAME": self.node_name,
            "RABBITMQ_NODE_IP_ADDRESS": self.host,
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(self.dist_port),
            "RABBITMQ_MNESIA_BASE": str(root / "mnesia"),
            "RABBITMQ_LOG_BASE": str(root / "log"),
            "RABBITMQ_PID_FILE": str(root / "rabbitmq.pid"),
            "RABBITMQ_PLUGINS_EXPAND_DIR": str(root / "plugins-expand"),
            "RABBITMQ_FEATURE_FLAGS_FILE": str(root / "feature_flags"),
            "RABBITMQ_QUORUM_DIR": str(root / "quorum"),
            "RABBITMQ_STREAM_DIR": str(root / "stream"),
            "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
            "ERL_EPMD_PORT": str(self.epmd_port),
            "ERL_EPMD_ADDRESS": self.host,
        })
        return env

    def _command(self) -> list[str]:
        # epmd first, in the foreground of the same process group (so it goes when the group is killed):
        # the node registers with it instead of starting a daemon epmd that would outlive the test
        return ["/bin/sh", "-c", '"$0" -port "$1" -address "$2" & sleep 0.3; exec "$3"',
                str(self._epmd), str(self.epmd_port), self.host, str(self._script)]


class RedisServer(_ProcessServer):
    """A throwaway Redis server on 127.0.0.1 (no persistence), from Debian's ``redis-server`` package.

    :attr:`url` is ``redis://127.0.0.1:<port>/0``.
    """

    kind = "redis"
    ready_probe = staticmethod(_redis_ready)

    def __init__(self, base_dir: Path | None = None, *, start_timeout: float = 20.0) -> None:
        super().__init__(base_dir, start_timeout=start_timeout)
        self._binary: Path | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("RedisServer not started")
        return f"redis://{self.host}:{self.port}/0"

    def _prepare(self) -> None:
        override = os.environ.get(REDIS_SERVER_ENV)
        binary = override or shutil.which("redis-server") or shutil.which("redis-server", path="/usr/bin:/usr/sbin")
        if not _executable(binary):
            where = f"{REDIS_SERVER_ENV}={override}" if override else "redis-server on PATH"
            raise ServerUnavailable(f"Redis server not found ({where}); {REDIS_INSTALL_HINT}, or set "
                                    f"{REDIS_SERVER_ENV} to the redis-server binary")
        self._binary = Path(binary)  # type: ignore[arg-type]

    def _command(self) -> list[str]:
        return [str(self._binary), "--port", str(self.port), "--bind", self.host, "--dir", str(self._root()),
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes",
                "--unixsocket", "", "--loglevel", "warning"]


def uuid_hex() -> str:
    import uuid

    return uuid.uuid4().hex[:12]
