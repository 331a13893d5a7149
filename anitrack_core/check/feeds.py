"""Feeds of recent releases: which stored projects an upstream says just released something.

Package indexes (PyPI, npm, crates.io, RubyGems, CPAN, CRAN, PEAR, PECL...)
publish the releases they received lately.  A backend exposes its index's
feed through :meth:`anitrack_core.backend.Backend.recent_releases`;
:func:`projects_named_by_feeds` asks every backend that implements it and
returns the ids of the stored projects the feeds name, so the scheduler can
check them now instead of waiting for their ``next_check``.  Feeds never
create projects (a firehose of new names is spam, not data).

:func:`rss_items` and :func:`parse_xml` are for backend authors: they read an
upstream's XML (an RSS 0.9x/1.0/2.0 or Atom feed fetched with ``http.fetch(url)``)
with `defusedxml <https://pypi.org/project/defusedxml/>`_, which refuses entity
declarations and external references in any encoding (UTF-16 included) and
fetches nothing a document refers to.
"""

from __future__ import annotations

import logging
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterable
from typing import Any

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeElementTree

from ..backend import Backend, FeedEntry
from ..errors import AnitrackError
from .http import FetchError

log = logging.getLogger(__name__)

#: names looked up per query (SQLite allows 999 bound parameters on old builds)
_CHUNK = 500

__all__ = ["FeedEntry", "parse_xml", "implements_feed", "projects_named_by_feeds", "rss_items"]


def implements_feed(backend_cls: type) -> bool:
    """Whether *backend_cls* overrides :meth:`Backend.recent_releases`."""
    return getattr(backend_cls, "recent_releases", Backend.recent_releases) is not Backend.recent_releases


def _local(tag: Any) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def rss_items(content: bytes, url: str) -> list[dict[str, str]]:
    """The items of an RSS (or Atom) document, in document order.

    Each item is a dict of the text of its direct children by local name
    (``title``, ``link``, ``description``...); an Atom ``<link href=...>`` gives
    ``link``.  Namespaces are ignored, so RSS 1.0 (RDF) and 2.0 read alike.

    :raises FetchError: the document is not well-formed XML, or declares entities.
    """
    items = []
    for element in parse_xml(content, url).iter():
        if _local(element.tag) not in ("item", "entry"):
            continue
        fields: dict[str, str] = {}
        for child in element:
            name = _local(child.tag)
            text = (child.text or "").strip() or (child.get("href") or "").strip()
            if name and text and name not in fields:
                fields[name] = text
        items.append(fields)
    return items


def parse_xml(content: bytes, url: str) -> ElementTree.Element:
    """The root element of the XML document *content* (fetched from *url*), parsed safely.

    :raises FetchError: the document is not well-formed XML, or declares
        entities or refers to external resources (never resolved).
    """
    try:
        return SafeElementTree.fromstring(content)
    except DefusedXmlException:
        raise FetchError(f"{url}: the document declares XML entities or external references, "
                         "which are not accepted") from None
    except ElementTree.ParseError as exc:
        raise FetchError(f"{url}: the document is not well-formed XML ({exc})") from None


def _names_by_backend(plugins: Any, http_client: Any,
                      backend_for: Callable[[str], Backend] | None) -> Iterable[tuple[type, set[str]]]:
    for backend_cls in plugins.backends:
        if not implements_feed(backend_cls):
            continue
        http = http_client.for_check() if hasattr(http_client, "for_check") else http_client
        try:
            backend = backend_for(backend_cls.name) if backend_for is not None else backend_cls()
            entries = backend.recent_releases(http)
        except AnitrackError as exc:
            log.warning("feed of backend %s skipped: %s", backend_cls.name, exc)
            continue
        except Exception:  # a plugin's bug must not stop the other feeds
            log.exception("feed of backend %s failed", backend_cls.name)
            continue
        names = {entry.name.strip().casefold() for entry in entries or ()
                 if isinstance(entry, FeedEntry) and isinstance(entry.name, str) and entry.name.strip()}
        log.debug("feed of backend %s: %d entries, %d names", backend_cls.name, len(entries or ()), len(names))
        if names:
            yield backend_cls, names


def projects_named_by_feeds(plugins: Any, http_client: Any, *,
                            backend_for: Callable[[str], Backend] | None = None) -> list[int]:
    """The ids of the stored, non-archived projects that the backends' feeds name.

    For each registered backend that implements :meth:`Backend.recent_releases`,
    its feed is read and the projects of that backend whose name appears in it
    (compared case-insensitively, within the backend's ecosystem when it has
    one) are collected.  A feed that fails is logged and skipped.  Needs a
    bound database (:data:`anitrack_core.db.models.database_proxy`).

    :param plugins: the loaded :class:`anitrack_core.plugins.Plugins`.
    :param http_client: the process's :class:`anitrack_core.check.http.HttpClient`
        (each feed gets its own per-check client, so its own deadline), or an
        object with the ``CheckHttp`` interface used as it is.
    :param backend_for: ``backend_for(name)`` gives the backend instance to ask
        (the engine passes :meth:`Checker.backend`, whose instances are
        configured); by default each backend class is instantiated with no
        arguments.
    :returns: project ids, each once, grouped by backend in registration order.
    """
    from ..db.models import Project

    found: dict[int, None] = {}
    for backend_cls, names in _names_by_backend(plugins, http_client, backend_for):
        ecosystem = plugins.ecosystems.for_backend(backend_cls.name)
        ordered = sorted(names)
        for start in range(0, len(ordered), _CHUNK):
            query = (Project.select(Project.id)
                     .where((Project.archived == False)  # noqa: E712 (peewee expression)
                            & (Project.backend == backend_cls.name)
                            & (Project.name_key.in_(ordered[start:start + _CHUNK]))))
            if ecosystem is not None:
                query = query.where(Project.ecosystem_key == ecosystem.name.casefold())
            for (project_id,) in query.order_by(Project.id).tuples():
                found.setdefault(project_id, None)
    return list(found)
