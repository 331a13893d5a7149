"""What the routes of one application share: the runtime and the read helpers built on it."""

from __future__ import annotations

from dataclasses import dataclass, field

from anitrack_core.listing import SchemeCache
from anitrack_core.runtime import Runtime

from .views import ProjectViews


@dataclass
class WebContext:
    runtime: Runtime
    schemes: SchemeCache = field(init=False)
    views: ProjectViews = field(init=False)

    def __post_init__(self) -> None:
        self.schemes = SchemeCache(self.runtime.plugins)
        self.views = ProjectViews(self.schemes)

    @property
    def plugins(self):  # noqa: ANN201 (anitrack_core.plugins.Plugins)
        return self.runtime.plugins
