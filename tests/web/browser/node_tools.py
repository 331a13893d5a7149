"""The browser tests' node tools (node/): a real OpenID Connect provider, node's ``oidc-provider``
(node/server.mjs), and the accessibility checker axe-core.

The provider runs as its own process on loopback with its development sign-in
pages (any password is accepted for the accounts it is given).  The npm
packages are installed into ``node/node_modules`` from the committed lock file
the first time a test needs them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from tests.servers import ServerError, ServerUnavailable, free_port
from tests.servers.locking import file_lock

HERE = Path(__file__).resolve().parent / "node"
#: axe-core's browser script, evaluated in pages to check their accessibility
AXE_SCRIPT = HERE / "node_modules" / "axe-core" / "axe.min.js"
START_TIMEOUT = 30


def install_dependencies() -> None:
    """``npm ci`` into node/node_modules unless it is there; ServerUnavailable without node or npm."""
    for command in ("node", "npm"):
        if shutil.which(command) is None:
            raise ServerUnavailable(f"the {command} command is needed for the test OpenID Connect provider "
                                    "(apt-get install nodejs npm)")
    with file_lock(Path(tempfile.gettempdir()) / "anitrack-browser-npm-ci.lock"):  # one xdist worker installs
        if (HERE / "node_modules" / "oidc-provider").is_dir() and AXE_SCRIPT.is_file():
            return
        result = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE,
                                capture_output=True, text=True, timeout=300)
    if result.returncode:
        raise ServerUnavailable(f"npm ci for the browser tests' node tools failed: {result.stderr.strip()}")


class OidcProviderProcess:
    """One provider process.

    :param clients: client registrations (``client_id``, ``client_secret``, ``redirect_uris``).
    :param accounts: login name → claims (``email``, ``email_verified``, ``preferred_username``).
    """

    def __init__(self, clients: list[dict[str, Any]], accounts: dict[str, dict[str, Any]]) -> None:
        self.port = free_port("127.0.0.1")
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.clients = clients
        self.accounts = accounts
        self._process: subprocess.Popen[str] | None = None
        self._dir = tempfile.TemporaryDirectory(prefix="anitrack-oidc-")
        self.output: list[str] = []

    def start(self) -> OidcProviderProcess:
        install_dependencies()
        config = Path(self._dir.name) / "config.json"
        config.write_text(json.dumps({"port": self.port, "clients": self.clients, "accounts": self.accounts}))
        self._process = subprocess.Popen(["node", str(HERE / "server.mjs"), str(config)], cwd=HERE,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        started = threading.Event()

        def read() -> None:
            assert self._process is not None and self._process.stdout is not None
            for line in self._process.stdout:
                self.output.append(line.rstrip())
                if line.startswith("listening "):
                    started.set()

        threading.Thread(target=read, daemon=True).start()
        if not started.wait(START_TIMEOUT):
            self.stop()
            raise ServerError("the test OpenID Connect provider did not start:\n" + "\n".join(self.output))
        return self

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._dir.cleanup()

    def __enter__(self) -> OidcProviderProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
