"""The ``Drupal7`` backend: releases of a drupal.org project for Drupal 7.

The release history is read by :class:`anitrack_backend_drupal7.release_history.DrupalBackend`,
shared by the Drupal6 and Drupal7 backends.
"""

from __future__ import annotations

from anitrack_backend_drupal7.release_history import DrupalBackend, drupal_more_info
from anitrack_core import hookimpl


class Drupal7Backend(DrupalBackend):
    name = "Drupal7"
    core = "7"
    examples = ["https://www.drupal.org/project/pathauto", "https://www.drupal.org/project/wysiwyg"]
    more_info = drupal_more_info("7", "6")


@hookimpl
def anitrack_register_backends(registry):
    registry.add(Drupal7Backend)
