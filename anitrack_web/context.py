"""What the routes of one application share: the runtime and the read helpers built on it."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from anitrack_core.listing import SchemeCache
from anitrack_core.runtime import Runtime

from .pages.rendering import Renderer
from .sessions import SessionCookies
from .views import ProjectViews


@dataclass
class WebContext:
    runtime: Runtime
    schemes: SchemeCache = field(init=False)
    views: ProjectViews = field(init=False)
    renderer: Renderer = field(init=False)
    cookies: SessionCookies = field(init=False)

    _checker: Any = field(init=False, default=None)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.schemes = SchemeCache(self.runtime.plugins)
        self.views = ProjectViews(self.schemes)
        self.renderer = Renderer()
        settings = self.runtime.settings
        self.cookies = SessionCookies(secure=settings.base_url.startswith("https://"),
                                      lifetime=timedelta(hours=settings["auth.session_hours"]))

    @property
    def checker(self) -> Any:
        """The check engine of this app (anitrack_core.check.runner.Checker), made on first use."""
        with self._lock:
            if self._checker is None:
                from anitrack_core.check.runner import Checker

                self._checker = Checker(self.runtime)
            return self._checker

    def render(self, template: str, **context: Any) -> str:
        """A page for the current visitor (see :class:`~anitrack_web.pages.rendering.Renderer`)."""
        return self.renderer.render(template, **context)

    @property
    def providers(self) -> dict[str, Any]:
        """The identity providers people sign in with, by name."""
        return self.runtime.identity_providers

    def provider_title(self, name: str) -> str:
        """How a provider is shown to people: its display name, or *name* if it is no longer configured."""
        provider = self.providers.get(name)
        return provider.display_name if provider is not None else name

    @property
    def plugins(self):  # noqa: ANN201 (anitrack_core.plugins.Plugins)
        return self.runtime.plugins
