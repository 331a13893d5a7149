"""Base classes that backend plugins may build on.

* :mod:`anitrack_core.backends.page`: :class:`~anitrack_core.backends.page.RegexPageBackend`,
  one page read with a regex;
* :mod:`anitrack_core.backends.pear_channel`:
  :class:`~anitrack_core.backends.pear_channel.ChannelBackend`, a PHP channel
  server's REST release lists and RSS feed (PEAR, PECL);
* :mod:`anitrack_core.backends.drupal`: :class:`~anitrack_core.backends.drupal.DrupalBackend`,
  the drupal.org release history of one Drupal core (Drupal6, Drupal7).
"""
