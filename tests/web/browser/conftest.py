"""Browser tests: real Chromium (Debian's, driven by Playwright) against a live anitrack whose
sign-in goes through a real OpenID Connect provider on loopback (node_tools.py).

Two providers are configured, ``one`` and ``two`` (two clients of one provider
process), so a person can try to sign in with a second provider.  Accounts the
provider knows (any password): see ACCOUNTS.  ``root@example.org`` is made an
administrator at sign-in.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anitrack_core.testing import skip_or_fail
from tests.servers import ServerUnavailable, free_port

from .node_tools import AXE_SCRIPT, OidcProviderProcess, install_dependencies

ACCOUNTS = {
    "alice": {"email": "alice@example.org", "email_verified": True, "preferred_username": "alice"},
    "bob": {"email": "bob@example.org", "email_verified": True, "preferred_username": "bob"},
    "root": {"email": "root@example.org", "email_verified": True, "preferred_username": "root"},
}
PROVIDERS = {"one": "Provider One", "two": "Provider Two"}
ADMIN_EMAIL = "root@example.org"
CHROMIUM = os.environ.get("ANITRACK_CHROMIUM", "/usr/bin/chromium")
#: the flags a headless Chromium needs on a machine without network or display
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
SCREENSHOTS = Path(os.environ.get("ANITRACK_SCREENSHOTS", "")) if os.environ.get("ANITRACK_SCREENSHOTS") else None


@pytest.fixture(scope="session")
def site_port() -> int:
    """The live server's port, fixed for the session: the provider knows its callback URLs."""
    return free_port("127.0.0.1")


@pytest.fixture
def live_port(site_port: int) -> int:
    return site_port


@pytest.fixture(scope="session")
def oidc(site_port: int) -> Iterator[OidcProviderProcess]:
    clients = [{"client_id": f"anitrack-{name}", "client_secret": f"secret-{name}",
                "redirect_uris": [f"http://127.0.0.1:{site_port}/auth/{name}"]} for name in PROVIDERS]
    try:
        process = OidcProviderProcess(clients, ACCOUNTS).start()
    except ServerUnavailable as exc:
        skip_or_fail(str(exc))
    yield process
    process.stop()


@pytest.fixture
def anitrack_env(anitrack_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, oidc: OidcProviderProcess,
                 site_port: int) -> dict[str, str]:
    """The test environment with the base URL and both providers configured (as operators would, by
    ``ANITRACK_*`` variables)."""
    values = {"ANITRACK_BASE_URL": f"http://127.0.0.1:{site_port}", "ANITRACK_AUTH_ADMIN_EMAILS": ADMIN_EMAIL}
    for name, title in PROVIDERS.items():
        prefix = f"ANITRACK_AUTH_PROVIDERS_{name.upper()}_"
        values.update({prefix + "KIND": "oidc", prefix + "ISSUER": oidc.issuer,
                       prefix + "CLIENT_ID": f"anitrack-{name}", prefix + "CLIENT_SECRET": f"secret-{name}",
                       prefix + "DISPLAY_NAME": title})
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    anitrack_env.update(values)
    return anitrack_env


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """Debian's Chromium, started once, driven by Playwright (never a downloaded browser)."""
    if not Path(CHROMIUM).exists() and not shutil.which(CHROMIUM):
        skip_or_fail(f"Chromium is needed for the browser tests: apt-get install chromium ({CHROMIUM} is absent)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("Playwright is needed for the browser tests: pip install playwright")
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture
def new_page(chromium: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """Open a page in a new browser context (its own cookies: one person each); closed after the test."""
    contexts = []

    refused: list[str] = []

    def open_page() -> Any:
        context = chromium.new_context(permissions=["clipboard-read", "clipboard-write"])
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        page.on("console", lambda message: refused.append(f"{page.url}: {message.text}")
                if "Content Security Policy" in message.text else None)
        return page

    yield open_page
    assert not refused, "the browser refused something a page asked for (CSP):\n" + "\n".join(refused)
    for number, context in enumerate(contexts):
        if SCREENSHOTS is not None:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
            for index, page in enumerate(context.pages):
                page.screenshot(path=SCREENSHOTS / f"{name}-{number}-{index}.png", full_page=True)
        context.close()


@pytest.fixture
def page(new_page: Any) -> Any:
    return new_page()


@pytest.fixture(scope="session")
def axe_source(oidc: OidcProviderProcess) -> str:
    """axe-core's script (installed with the provider's npm packages)."""
    install_dependencies()
    return AXE_SCRIPT.read_text(encoding="utf-8")


#: the axe-core rule sets a page must pass: WCAG 2.1 A and AA, and best practices
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


@pytest.fixture
def accessibility_problems(axe_source: str) -> Any:
    """Run axe-core in *page* (evaluated by the browser's devtools, so the page's CSP stays on);
    returns the serious and critical violations, each as a readable line."""

    def problems(page: Any) -> list[str]:
        found = page.evaluate(
            axe_source + "\n;axe.run(document, {runOnly: {type: 'tag', values: %s}, resultTypes: ['violations']})"
            ".then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
            " nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)})))" % AXE_TAGS)
        return [f"{page.url}: {v['impact']} {v['id']} ({v['help']}): {', '.join(v['nodes'])}"
                for v in found if v["impact"] in ("serious", "critical")]

    return problems
