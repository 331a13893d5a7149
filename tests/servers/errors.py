"""Why a test server could not be had."""


class ServerUnavailable(Exception):
    """The server cannot run here because something is not installed.

    The message says what is missing and how to install it.
    """


class ServerError(RuntimeError):
    """The server is installed but failed to start, answer or stop."""
