"""A backend for the releases of a drupal.org project for one Drupal core.

drupal.org publishes, per project and core branch, an XML release history at
``https://updates.drupal.org/release-history/<project>/<core>.x`` whose
``<version>`` elements read ``<core>.x-<version>`` (``7.x-2.1``, ``7.x-3.x-dev``).
"""

from __future__ import annotations

import html
import re

from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.errors import BackendError

_ERROR = re.compile(r"<error>([^<]*)</error>")


class DrupalBackend(RegexPageBackend):
    """What every core branch shares; the subclasses set :attr:`core`."""

    core: str
    #: the release-history service (a test may point it to a fake upstream)
    updates = "https://updates.drupal.org"

    @classmethod
    def short_name(cls, name: str) -> str:
        """The drupal.org machine name: without a ``Drupal<core>:`` prefix, ``-`` written ``_``."""
        given = name
        name = name.strip()
        prefix = f"drupal{cls.core}:"
        if name.lower().startswith(prefix):
            name = name[len(prefix):].strip()
        name = name.replace("-", "_")
        if not name or "/" in name:
            raise BackendError(f"Project {given} was incorrectly set up: its name must be the "
                               f"drupal.org machine name, optionally prefixed with 'Drupal{cls.core}:'")
        return name

    @classmethod
    def history_url(cls, name: str) -> str:
        return f"{cls.updates}/release-history/{cls.short_name(name)}/{cls.core}.x"

    def page_url(self, project):
        return self.history_url(project.name)

    def version_regex(self, project):
        return rf"<version>{self.core}\.x-([^<]+)</version>"

    def versions_in(self, text, project, url, http):
        """drupal.org answers an unknown project with 200 and ``<error>...</error>``."""
        refused = _ERROR.search(text)
        if refused:
            raise BackendError(f"{project.name}: {html.unescape(refused.group(1)).strip()} - {url}")
        return super().versions_in(text, project, url, http)


def drupal_more_info(core: str, other: str) -> str:
    """The ``more_info`` of the backend for Drupal *core*, whose projects may also be tracked for *other*."""
    return (f"The project name is the drupal.org machine name of the module or theme (the last part of "
            f"https://www.drupal.org/project/<name>); '-' is read as '_'. A project tracked for both Drupal "
            f"{core} and Drupal {other} needs two anitrack projects with different names: prefix this one "
            f"with 'Drupal{core}:' (for example 'Drupal{core}: pathauto'); the prefix is not sent to drupal.org.")
