"""The ``Drupal6`` backend: releases of a drupal.org project for Drupal 6.

The release history is read by :class:`anitrack_core.backends.drupal.DrupalBackend`.
"""

from __future__ import annotations

from anitrack_core import hookimpl
from anitrack_core.backends.drupal import DrupalBackend, drupal_more_info


class Drupal6Backend(DrupalBackend):
    name = "Drupal6"
    core = "6"
    examples = ["https://www.drupal.org/project/pathauto", "https://www.drupal.org/project/wysiwyg"]
    more_info = drupal_more_info("6", "7")


@hookimpl
def anitrack_register_backends(registry):
    registry.add(Drupal6Backend)
