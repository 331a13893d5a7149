"""A throwaway PostgreSQL server for the tests and benchmarks, from Debian's ``postgresql`` binaries.

:class:`PostgresServer` makes a fresh cluster in a temporary directory,
listening on a free TCP port of 127.0.0.1 only (its unix socket sits in the
data directory), trusted without a password, stopped and deleted on exit::

    with PostgresServer() as server:
        url = server.create_database("test_one")   # 0.03-0.3 s each
        ...                                        # connect to url

One server per test session (per xdist worker) is the intended use; a database per test is cheap.

Why our own code and not pytest-postgresql: CI runs as root, which PostgreSQL
refuses; this server runs as the unprivileged ``postgres`` user that the
Debian package creates (through ``setpriv``), which pytest-postgresql cannot.
It also needs no Python driver (databases are made with the server's own
``psql``), and a watchdog stops it when the test process is killed, so the
subprocesses of the scale-out tests and the benchmarks may share it.
"""

from __future__ import annotations

import os
import pwd
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

from .errors import ServerError, ServerUnavailable
from .ports import free_port, port_open

__all__ = ["PG_BIN_ENV", "PostgresServer", "find_postgres_bin"]

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
            conf.write("\n# tests.servers.postgres: throwaway test server\n")
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
                while not port_open(self.host, self.port):
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
        if result.returncode != 0 and self.port is not None and port_open(self.host, self.port):
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
