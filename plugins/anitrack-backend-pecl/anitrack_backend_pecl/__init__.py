"""The ``PECL`` backend: PHP extensions on pecl.php.net.

The channel server's protocol (REST release lists, RSS feed of the latest
releases) is :class:`anitrack_backend_pear.channel.ChannelBackend`
(distribution anitrack-backend-pear, a dependency of this one).
"""

from __future__ import annotations

from anitrack_backend_pear.channel import ChannelBackend, channel_more_info
from anitrack_core import hookimpl


class PeclBackend(ChannelBackend):
    name = "PECL"
    examples = ["https://pecl.php.net/package/inotify", "https://pecl.php.net/package/gnupg"]
    more_info = channel_more_info("pecl.php.net", "pecl_http, pecl-http")
    site = "https://pecl.php.net"
    api_base = "https://pecl.php.net"
    feed_url = "https://pecl.php.net/feeds/latest.rss"


@hookimpl
def anitrack_register_backends(registry):
    registry.add(PeclBackend)
