"""The ``PEAR`` backend: PHP packages on pear.php.net.

The channel server's protocol (REST release lists, RSS feed of the latest
releases) is :class:`anitrack_backend_pear.channel.ChannelBackend`, shared by the PEAR and
PECL backends.
"""

from __future__ import annotations

from anitrack_backend_pear.channel import ChannelBackend, channel_more_info
from anitrack_core import hookimpl


class PearBackend(ChannelBackend):
    name = "PEAR"
    examples = ["https://pear.php.net/package/Auth/", "https://pear.php.net/package/PHP_UML"]
    more_info = channel_more_info("pear.php.net", "PHP_UML, php-uml")
    site = "https://pear.php.net"
    api_base = "https://pear.php.net"
    feed_url = "https://pear.php.net/feeds/latest.rss"


@hookimpl
def anitrack_register_backends(registry):
    registry.add(PearBackend)
