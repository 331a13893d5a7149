"""Creating, reading and deleting webhook subscriptions, with every field checked.

A subscription names a URL, the event topics it wants (suffixes such as
``project.version.update.v2``; none: every topic) and optional filters: project
ids, distribution names, ecosystem names.  Its secret (``whsec_`` + base64,
the Standard Webhooks format) is made here and shown once, when it is created.
"""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import peewee

from ..check.http import guard as netguard
from ..db.models import Distro, OutboxEvent, Project, User, Webhook, WebhookDelivery
from ..errors import FieldError
from ..events import TOPICS

if TYPE_CHECKING:
    from ..config import Settings
    from ..plugins import Plugins

FILTERS = ("projects", "distributions", "ecosystems")
MAX_URL = 2048
MAX_DESCRIPTION = 200


def new_secret() -> str:
    """A Standard Webhooks signing secret: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def check_url(url: str, *, allow_private: bool, resolver: netguard.Resolver | None = None) -> str:
    """*url* if a webhook may be sent there: http(s), and an address the check engine's guard allows.

    :raises FieldError: (field ``url``) saying why not.
    """
    url = (url or "").strip()
    if not url:
        raise FieldError("url", "A URL is required.")
    if len(url) > MAX_URL:
        raise FieldError("url", f"At most {MAX_URL} characters.")
    try:
        parts = netguard.check_url(url)
    except netguard.UnsupportedURL as exc:
        raise FieldError("url", str(exc)) from None
    guard = netguard.AddressGuard(allow_private=allow_private, resolver=resolver or netguard.system_resolver)
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    try:
        guard.resolve(parts.hostname or "", port)
    except netguard.AddressRefused as exc:
        raise FieldError("url", f"Webhooks cannot be sent to {exc.address}: {exc.reason}.") from None
    except netguard.UnresolvableHost as exc:
        raise FieldError("url", f"The host name {exc.host!r} cannot be resolved ({exc.reason}).") from None
    return url


def _topics(given: Iterable[str], prefix: str) -> list[str]:
    chosen = []
    for topic in given:
        suffix = topic.strip().removeprefix(prefix + ".").removeprefix("anitya.")
        if suffix not in TOPICS:
            raise FieldError("topics", f"Unknown topic {topic!r}; the topics are: {', '.join(TOPICS)}.")
        if suffix not in chosen:
            chosen.append(suffix)
    return chosen


def _projects(given: Iterable[str]) -> list[int]:
    ids = []
    for value in given:
        if not str(value).strip().isdigit() or len(str(value).strip()) > 18:
            raise FieldError("projects", f"{value!r} is not a project id.")
        ids.append(int(value))
    known = {row.id for row in Project.select(Project.id).where(Project.id.in_(ids))} if ids else set()
    missing = [str(i) for i in ids if i not in known]
    if missing:
        raise FieldError("projects", f"No project has the id {', '.join(missing)}.")
    return sorted(set(ids))


def _distributions(given: Iterable[str]) -> list[str]:
    names = [name.strip() for name in given if name.strip()]
    keys = [name.casefold() for name in names]
    found = {row.name_key: row.name for row in Distro.select().where(Distro.name_key.in_(keys))} if keys else {}
    missing = [name for name in names if name.casefold() not in found]
    if missing:
        raise FieldError("distributions", f"No distribution is named {', '.join(missing)}.")
    return sorted({found[key] for key in keys})


def _ecosystems(given: Iterable[str], plugins: Plugins) -> list[str]:
    names = []
    for name in given:
        ecosystem = plugins.ecosystems.find(name.strip())
        if ecosystem is None:
            known = ", ".join(plugins.ecosystems.names()) or "none"
            raise FieldError("ecosystems", f"No ecosystem is named {name!r} (known: {known}).")
        names.append(ecosystem.name)
    return sorted(set(names))


def create(user: User, settings: Settings, plugins: Plugins, *, url: str, topics: Iterable[str] = (),
           projects: Iterable[str] = (), distributions: Iterable[str] = (), ecosystems: Iterable[str] = (),
           description: str | None = None) -> tuple[Webhook, str]:
    """Subscribe *user*; returns the subscription and its secret (to show once).

    Events written from now on are delivered; earlier ones are not.

    :raises FieldError: a field is invalid, or the user has ``webhooks_per_user`` subscriptions already.
    """
    url = check_url(url, allow_private=settings["webhook_allow_private"])
    description = (description or "").strip() or None
    if description and len(description) > MAX_DESCRIPTION:
        raise FieldError("description", f"At most {MAX_DESCRIPTION} characters.")
    values = {"topics": _topics(topics, settings["topic_prefix"]), "projects": _projects(projects),
              "distributions": _distributions(distributions), "ecosystems": _ecosystems(ecosystems, plugins)}
    limit = settings["webhooks_per_user"]
    with Webhook._meta.database.atomic():
        if Webhook.select().where(Webhook.user == user.id).count() >= limit:
            raise FieldError("url", f"You have {limit} webhooks, the most one user may have; delete one first.")
        secret = new_secret()
        start = OutboxEvent.select(peewee.fn.MAX(OutboxEvent.id)).scalar() or 0
        webhook = Webhook.create(user=user.id, url=url, secret=secret, description=description,
                                 last_event_id=start, **{key: json.dumps(value) for key, value in values.items()})
    return webhook, secret


def of_user(user: User) -> list[Webhook]:
    return list(Webhook.select().where(Webhook.user == user.id).order_by(Webhook.id))


def find(user: User, webhook_id: int) -> Webhook | None:
    """*user*'s subscription *webhook_id* (None when it is not theirs)."""
    return Webhook.get_or_none((Webhook.id == webhook_id) & (Webhook.user == user.id))


def delete(user: User, webhook_id: int) -> bool:
    """Delete *user*'s subscription and its delivery log; False when there is no such subscription of theirs."""
    return bool(Webhook.delete().where((Webhook.id == webhook_id) & (Webhook.user == user.id)).execute())


def set_active(webhook: Webhook, active: bool) -> None:
    """Pause or resume a subscription (resuming delivers what waited, in order)."""
    Webhook.update(active=active, disabled_reason=None).where(Webhook.id == webhook.id).execute()


def deliveries(webhook: Webhook, limit: int = 50) -> list[WebhookDelivery]:
    """The latest deliveries of *webhook*, newest first."""
    return list(WebhookDelivery.select().where(WebhookDelivery.webhook == webhook.id)
                .order_by(WebhookDelivery.id.desc()).limit(limit))


def as_json(webhook: Webhook) -> dict[str, Any]:
    """The subscription as the API shows it (never its secret)."""
    return {"id": webhook.id, "url": webhook.url, "description": webhook.description,
            **{key: json.loads(getattr(webhook, key)) for key in ("topics", *FILTERS)},
            "active": webhook.active, "disabled_reason": webhook.disabled_reason,
            "created_on": webhook.created_on.replace(microsecond=0).isoformat() + "Z"}
