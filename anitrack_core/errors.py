"""The error types anitrack raises.

Every error a user can cause derives from :class:`AnitrackError`, whose message
is written for that user: the CLI prints it as it is and the web API puts it in
its JSON error body.
"""

from __future__ import annotations

from datetime import datetime


class AnitrackError(Exception):
    """Base of every anitrack error that carries a user-facing message."""


class FieldError(AnitrackError):
    """A value given for a named field is missing or invalid."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class ConfigError(AnitrackError):
    """A setting is unknown, of the wrong type or out of range."""


class PluginError(AnitrackError):
    """A plugin could not be loaded or registered something invalid."""


class DuplicateNameError(PluginError):
    """A backend, ecosystem or version scheme name is registered twice."""


class UnknownNameError(AnitrackError, LookupError):
    """No backend, ecosystem or version scheme has the name asked for."""


class UnknownSchemeError(UnknownNameError):
    """No version scheme has the name asked for."""


class InvalidVersionError(AnitrackError, ValueError):
    """A version string cannot be parsed by the scheme asked for."""


class StoreError(AnitrackError):
    """The database cannot be reached, or its schema is not the one expected."""


class AlreadyExistsError(AnitrackError):
    """A record with the same identity exists (project in its ecosystem, user...)."""


class NotFoundError(AnitrackError, LookupError):
    """The record asked for does not exist."""


class InvalidMappingError(AnitrackError):
    """A package cannot be mapped to the project asked for."""


class BackendError(AnitrackError):
    """A backend failed to retrieve versions from its upstream."""


class RateLimitError(BackendError):
    """An upstream rate limit was reached; checks may resume at ``reset_time`` (UTC)."""

    def __init__(self, message: str, reset_time: datetime) -> None:
        super().__init__(message)
        self.reset_time = reset_time


class EmailTakenError(AnitrackError):
    """A sign-in reports an e-mail address that belongs to a user of another identity provider.

    ``providers`` names the provider(s) that user signs in with.
    """

    def __init__(self, message: str, providers: list[str]) -> None:
        super().__init__(message)
        self.providers = providers


class InactiveUserError(AnitrackError):
    """The user is inactive (banned) and cannot sign in."""
