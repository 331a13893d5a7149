"""Base classes that backend plugins may build on (:mod:`anitrack_core.backends.page`)."""
