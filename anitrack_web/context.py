"""What the routes of one application share: the runtime and the read helpers built on it."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from anitrack_core.listing import SchemeCache
from anitrack_core.runtime import Runtime

from .views import ProjectViews


@dataclass
class WebContext:
    runtime: Runtime
    schemes: SchemeCache = field(init=False)
    views: ProjectViews = field(init=False)

    _checker: Any = field(init=False, default=None)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.schemes = SchemeCache(self.runtime.plugins)
        self.views = ProjectViews(self.schemes)

    @property
    def checker(self) -> Any:
        """The check engine of this app (anitrack_core.check.runner.Checker), made on first use."""
        with self._lock:
            if self._checker is None:
                from anitrack_core.check.runner import Checker

                self._checker = Checker(self.runtime)
            return self._checker

    @property
    def plugins(self):  # noqa: ANN201 (anitrack_core.plugins.Plugins)
        return self.runtime.plugins
