"""The ``Drupal6`` backend: releases of a drupal.org project for Drupal 6.

The release history is read by :class:`anitrack_backend_drupal7.release_history.DrupalBackend`
(distribution anitrack-backend-drupal7, a dependency of this one).
"""

from __future__ import annotations

from anitrack_backend_drupal7.release_history import DrupalBackend, drupal_more_info
from anitrack_core import hookimpl


class Drupal6Backend(DrupalBackend):
    name = "Drupal6"
    core = "6"
    examples = ["https://www.drupal.org/project/pathauto", "https://www.drupal.org/project/wysiwyg"]
    more_info = drupal_more_info("6", "7")


@hookimpl
def anitrack_register_backends(registry):
    registry.add(Drupal6Backend)
