"""What a person does in the browser, step by step (shared by the browser tests)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from .conftest import PROVIDERS


def sign_in(page: Any, base: str, login: str, provider: str = "one", next_path: str | None = None) -> Any:
    """Sign in from the login page through the provider's own pages (its login form, then its consent
    form, each only when the provider asks); returns anitrack's answer to the provider's callback."""
    callbacks: list[Any] = []
    page.on("response", lambda r: callbacks.append(r) if r.url.startswith(f"{base}/auth/{provider}") else None)
    page.goto(base + "/login/" + (f"?next={quote(next_path, safe='')}" if next_path else ""))
    page.get_by_role("link", name=f"Sign in with {PROVIDERS[provider]}").click()
    for _ in range(4):
        page.wait_for_load_state()
        if page.url.startswith(base):
            break
        login_field = page.locator('input[name="login"]')
        if login_field.count():
            login_field.fill(login)
            page.locator('input[name="password"]').fill("any password")
            page.get_by_role("button", name="Sign-in").click()
        else:
            page.get_by_role("button", name="Continue").click()
    assert page.url.startswith(base), f"the provider did not send the browser back: {page.url}"
    assert callbacks, "anitrack's callback was not reached"
    return callbacks[-1]


def sign_out(page: Any) -> None:
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_load_state()


def main_text(page: Any) -> str:
    return " ".join(page.locator("main").inner_text().split())
