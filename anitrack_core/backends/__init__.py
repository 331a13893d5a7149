"""Base classes that backend plugins may build on.

* :mod:`anitrack_core.backends.page`: :class:`~anitrack_core.backends.page.RegexPageBackend`,
  one page read with a regex.

Code that serves one kind of upstream only lives in its plugins: the PHP
channel protocol in ``anitrack_backend_pear.channel`` (PEAR, PECL), drupal.org's
release history in ``anitrack_backend_drupal7.release_history`` (Drupal6, Drupal7).
"""
