"""Settings: a TOML file (``ANITRACK_CONFIG``) overridden by ``ANITRACK_*`` variables.

Every setting is declared once, with its type, default and help text: the
core's here, a plugin's through the ``anitrack_declare_settings`` hook.  A key
``database_url`` is read from ``database_url = "..."`` at the top of the file
or from ``ANITRACK_DATABASE_URL``; a plugin key ``github.token`` from the
``[github]`` table or ``ANITRACK_GITHUB_TOKEN``.  Values are validated when
the settings are loaded, and an error names the offending key and its source.
"""

from __future__ import annotations

import logging
import os
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigError

log = logging.getLogger(__name__)

ENV_PREFIX = "ANITRACK_"
CONFIG_ENV = "ANITRACK_CONFIG"
_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$")
_TRUE = {"1", "true", "yes", "on"}
#: keys of the tables of a ``dict`` setting whose values are never shown (``anitrack config``)
SECRET_TABLE_KEYS = frozenset({"client_secret"})
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class Setting:
    """One declared setting."""

    key: str
    type: type
    default: Any
    help: str
    secret: bool = False
    check: Callable[[Any], str | None] | None = None  # returns an error text or None
    owner: str = "anitrack"

    @property
    def env_var(self) -> str:
        return ENV_PREFIX + self.key.replace(".", "_").upper()


class SettingsSpec:
    """The declared settings; plugins add theirs in ``anitrack_declare_settings``."""

    def __init__(self) -> None:
        self._settings: dict[str, Setting] = {}
        #: the plugin on whose behalf :meth:`add` is called (set by the loader)
        self.current_plugin: str | None = None

    def add(
        self,
        key: str,
        *,
        type: type = str,
        default: Any = None,
        help: str = "",
        secret: bool = False,
        check: Callable[[Any], str | None] | None = None,
    ) -> None:
        """Declare a setting.

        :param key: ``name`` for the core, ``section.name`` for a plugin.
        :param type: one of ``str``, ``int``, ``float``, ``bool``, ``list`` (of
            strings; comma-separated in an environment variable), ``Path``, or
            ``dict``: a table in the file (``[check.host_concurrency]``, or a
            table of tables such as ``[auth.providers.<name>]``), whose
            contents the setting's *check* validates; it has no single
            environment variable.
        """
        if not _KEY_RE.match(key):
            raise ConfigError(f"invalid setting key {key!r}: use lower-case 'name' or 'section.name'")
        if type not in (str, int, float, bool, list, Path, dict):
            raise ConfigError(f"setting {key!r}: unsupported type {type!r}")
        if key in self._settings:
            raise ConfigError(f"setting {key!r} is declared twice (first by {self._settings[key].owner})")
        if "." in key and key.split(".")[0] in self._settings:
            raise ConfigError(f"setting section {key.split('.')[0]!r} clashes with a core setting")
        owner = self.current_plugin or "anitrack"
        self._settings[key] = Setting(key, type, default, help, secret, check, owner)

    def __iter__(self) -> Iterator[Setting]:
        return iter(self._settings.values())

    def __contains__(self, key: object) -> bool:
        return key in self._settings

    def get(self, key: str) -> Setting:
        return self._settings[key]

    def remove_owner(self, owner: str) -> None:
        """Forget the settings a plugin declared (used when the plugin turns out broken)."""
        for key in [k for k, s in self._settings.items() if s.owner == owner]:
            del self._settings[key]


class Settings(Mapping[str, Any]):
    """Loaded, validated settings.  ``settings["github.token"]`` or ``settings.database_url``."""

    def __init__(self, values: dict[str, Any], spec: SettingsSpec, sources: dict[str, str]) -> None:
        self._values = values
        self._spec = spec
        self._sources = sources

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def section(self, name: str) -> dict[str, Any]:
        """A plugin's settings, without the section prefix."""
        prefix = name + "."
        return {k[len(prefix):]: v for k, v in self._values.items() if k.startswith(prefix)}

    def source(self, key: str) -> str:
        """Where a value came from: "default", the TOML file path or the variable name."""
        return self._sources.get(key, "default")

    def public_items(self) -> list[tuple[str, Any, str]]:
        """(key, value, source) with secret values masked, for display."""
        rows = []
        for setting in self._spec:
            value = self._values.get(setting.key)
            if setting.type is dict:
                for name, table in (value or {}).items():
                    if not isinstance(table, dict):
                        rows.append((f"{setting.key}.{name}", table, self.source(setting.key)))
                        continue
                    for sub, subvalue in table.items():
                        masked = "********" if sub in SECRET_TABLE_KEYS and subvalue else subvalue
                        rows.append((f"{setting.key}.{name}.{sub}", masked, self.source(setting.key)))
                continue
            if setting.secret and value:
                value = "********"
            rows.append((setting.key, value, self.source(setting.key)))
        return rows


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "anitrack"


def _check_database_url(value: str | None) -> str | None:
    if value is None:
        return None
    if not re.match(r"^(sqlite|postgres|postgresql)://", value):
        return "must start with sqlite:// or postgresql:// (e.g. sqlite:////var/lib/anitrack/anitrack.db)"
    return None


def check_http_url(value: str | None) -> str | None:
    """A setting's *check* (:meth:`SettingsSpec.add`) for an http:// or https:// URL; plugins use it too."""
    if value and not re.match(r"^https?://[^/\s]+", value):
        return "must be an http:// or https:// URL"
    return None


def _positive(value: float | int | None) -> str | None:
    return "must be greater than 0" if value is not None and value <= 0 else None


def _not_negative(value: int | None) -> str | None:
    return "must not be negative" if value is not None and value < 0 else None


def _check_tables(value: dict[str, Any]) -> str | None:
    if not all(isinstance(table, dict) for table in value.values()):
        return "must hold one table per entry, such as [auth.providers.<name>]"
    return None


_HOST_NAME = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$|^\[?[0-9a-f]*:[0-9a-f:.]*\]?$")


def _check_host_bounds(value: dict[str, Any]) -> str | None:
    for host, bound in value.items():
        if not _HOST_NAME.match(host.lower()):
            return (f"names {host!r}, which is not a host name (write the bare name as in a URL, "
                    "without scheme, port or path: \"pypi.org\" = 64)")
        if isinstance(bound, bool) or not isinstance(bound, int) or bound < 1:
            return f"gives {host!r} the bound {bound!r}: it must be a whole number of requests, 1 or more"
    return None


def _check_not_empty(value: str) -> str | None:
    return "must not be empty" if not value or not value.strip() else None


#: links from a mapped package to its distribution's page (``web.package_links``)
DEFAULT_PACKAGE_LINKS = [
    "Fedora=https://src.fedoraproject.org/rpms/{package}",
    "Debian=https://tracker.debian.org/pkg/{package}",
    "Ubuntu=https://launchpad.net/ubuntu/+source/{package}",
    "Arch=https://archlinux.org/packages/?q={package}",
    "Arch Linux=https://archlinux.org/packages/?q={package}",
    "openSUSE=https://build.opensuse.org/package/show/openSUSE:Factory/{package}",
]


def _check_package_links(value: list[str] | None) -> str | None:
    for entry in value or []:
        distro, _, template = entry.partition("=")
        if not distro.strip() or "{package}" not in template or check_http_url(template.strip()):
            return (f"entry {entry!r} must read 'Distribution=https://.../{{package}}' "
                    "(an http(s) URL holding {package})")
    return None


def core_settings() -> SettingsSpec:
    """The settings of the core, declared like any plugin's."""
    spec = SettingsSpec()
    spec.add("data_dir", type=Path, default=None, help="directory of the SQLite file and other local data "
             "(default: $XDG_DATA_HOME/anitrack or ~/.local/share/anitrack)")
    spec.add("database_url", default=None, check=_check_database_url, secret=False,
             help="sqlite:////abs/path.db or postgresql://user:password@host:port/db "
                  "(default: anitrack.db in data_dir)")
    spec.add("db_busy_timeout", type=float, default=10.0, check=_positive,
             help="seconds a database statement waits for a lock another connection holds before failing")
    spec.add("broker_url", default="memory://", check=_check_not_empty,
             help="message broker for events (and the scaled-out work queue, unless scale.broker_url is set): "
                  "memory://, amqp://, redis://")
    spec.add("topic_prefix", default="org.anitrack", check=_check_not_empty, help="prefix of every event topic")
    spec.add("events_exchange", default="amq.topic", check=_check_not_empty, help="exchange events are published to")
    spec.add("allow_private_upstreams", type=bool, default=False,
             help="let checks reach loopback, private and link-local addresses (tests, intranets)")
    spec.add("base_url", default="http://localhost:5000", check=check_http_url,
             help="the public address of the service, used in links and redirects")
    spec.add("user_agent", default=None, help="User-Agent of upstream requests "
             "(default: 'anitrack/<version> (+<base_url>)')")
    spec.add("fetch_timeout", type=float, default=15.0, check=_positive,
             help="seconds to wait for an upstream to connect, and between bytes of its answer")
    spec.add("check_deadline", type=float, default=60.0, check=_positive,
             help="seconds one check of one project may take in all (every request of it)")
    spec.add("max_response_bytes", type=int, default=10 * 1024 * 1024, check=_positive,
             help="largest upstream answer read, in bytes")
    spec.add("regex_timeout", type=float, default=2.0, check=_positive,
             help="seconds a project's regular expression may run over one page")
    spec.add("check_error_threshold", type=int, default=100, check=_positive,
             help="consecutive failed checks after which a project without versions is deleted")
    spec.add("check_concurrency", type=int, default=64, check=_positive,
             help="checks in flight at once in one process")
    spec.add("check_processes", type=int, default=0, check=_not_negative,
             help="worker processes that fetch during a large pass (0: one per core; 1: none)")
    spec.add("check_write_retry", type=float, default=60.0, check=_not_negative,
             help="seconds a check pass retries (with back-off) saving a batch the database refuses as locked")
    spec.add("check_per_host", type=int, default=4, check=_positive,
             help="requests in flight at once to one upstream host that neither a backend nor "
                  "[check.host_concurrency] gives a bound (a project's own web server), per process")
    spec.add("check.host_concurrency", type=dict, default={}, check=_check_host_bounds,
             help="requests in flight at once to a host, per process, by host name ('pypi.org' = 64): "
                  "wins over what backends declare and over check_per_host")
    spec.add("webhooks_per_user", type=int, default=20, check=_positive,
             help="webhook subscriptions one user may have")
    spec.add("webhook_timeout", type=float, default=10.0, check=_positive,
             help="seconds a webhook receiver has to answer one delivery")
    spec.add("webhook_concurrency", type=int, default=4, check=_positive,
             help="webhook deliveries in flight at once")
    spec.add("webhook_allow_private", type=bool, default=False,
             help="let webhooks reach loopback, private and link-local addresses")
    spec.add("check_now_limit", type=int, default=10, check=_positive,
             help="checks one signed-in person may start from the web pages ('Check now') in 10 minutes")
    spec.add("web_workers", type=int, default=0, check=_not_negative,
             help="processes of `anitrack serve` (0: one per core)")
    spec.add("web_threads", type=int, default=4, check=_positive,
             help="threads of each `anitrack serve` process")
    spec.add("use_feeds", type=bool, default=True,
             help="read the package indexes' feeds of recent releases before each scheduler pass")
    spec.add("scheduler_interval", type=float, default=60.0, check=_positive,
             help="seconds between two scheduler passes over the due projects")
    spec.add("scale.broker_url", default=None,
             help="broker of the scaled-out work queue of `anitrack scheduler` and `anitrack worker` "
                  "(amqp://, redis://; default: broker_url, the events' broker)")
    spec.add("scale.concurrency", type=int, default=64, check=_positive,
             help="checks in flight at once in one `anitrack worker` (they mostly wait on upstreams)")
    spec.add("scale.fetch_processes", type=int, default=1, check=_positive,
             help="child processes of one `anitrack worker` that fetch (its scale.concurrency threads shared "
                  "among them); the worker itself saves")
    spec.add("auth.providers", type=dict, default={}, check=_check_tables,
             help="identity providers people sign in with: one [auth.providers.<name>] table each "
                  "(see docs/sign-in.md)")
    spec.add("auth.admin_emails", type=list, default=[],
             help="e-mail addresses made administrators when they sign in")
    spec.add("auth.session_hours", type=float, default=168.0, check=_positive,
             help="hours a web session lasts after sign-in")
    spec.add("web.package_links", type=list, default=DEFAULT_PACKAGE_LINKS, check=_check_package_links,
             help="links from a mapped package to its distribution's page on the project page: "
                  "'Distribution=URL' entries, {package} in the URL replaced by the package name")
    spec.add("disable_plugins", type=list, default=[], help="names of plugins (entry points) not to load")
    spec.add("no_plugin_autoload", type=bool, default=False, help="load only the built-in plugins")
    spec.add("trace_hooks", type=bool, default=False, help="log every hook call (debugging plugins)")
    return spec


def _coerce(setting: Setting, value: Any, source: str) -> Any:
    """Convert *value* (from TOML or an environment string) to the setting's type."""
    where = f"setting {setting.key!r} (from {source})"
    from_env = source.startswith(ENV_PREFIX)
    if value is None:
        return None
    kind = setting.type
    if kind is dict:
        if from_env:
            raise ConfigError(f"{where}: a table is set in the configuration file, "
                              f"not by one environment variable")
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a table [{setting.key}], got {value!r}")
        return value
    if isinstance(value, dict):
        raise ConfigError(f"{where}: expected a value, got a table")
    if kind is bool:
        if isinstance(value, bool):
            return value
        if from_env and isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    if kind is int or kind is float:
        if isinstance(value, bool):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        if isinstance(value, (int, float)) and (kind is float or isinstance(value, int)):
            return kind(value)
        if from_env and isinstance(value, str):
            try:
                return kind(value.strip())
            except ValueError:
                pass
        raise ConfigError(f"{where}: expected {'an integer' if kind is int else 'a number'}, got {value!r}")
    if kind is list:
        if from_env and isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a string, got {value!r}")
    return Path(value).expanduser() if kind is Path else value


def _flatten(data: dict[str, Any], path: Path) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            for sub, subvalue in value.items():
                # a table of tables ([auth.providers.<name>]) stays whole: its setting has type dict
                flat[f"{key}.{sub}"] = subvalue
        else:
            flat[key] = value
    return flat


def read_config_file(path: str | os.PathLike[str] | None) -> tuple[dict[str, Any], Path | None]:
    """The flattened contents of the TOML file, or {} when no file is named."""
    if not path:
        return {}, None
    file = Path(path).expanduser()
    try:
        with file.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"configuration file {file} (from {CONFIG_ENV}) does not exist") from None
    except OSError as exc:
        raise ConfigError(f"configuration file {file} cannot be read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"configuration file {file} is not valid TOML: {exc}") from None
    return _flatten(data, file), file


def _section_of(plugin_name: str) -> str:
    """The settings section of a plugin: its name in lower case, ``-`` as ``_`` (``sourceforge-git``)."""
    return plugin_name.casefold().replace("-", "_")


def _without_absent_plugins(file_values: dict[str, Any], environ: Mapping[str, str],
                            absent: Mapping[str, str], file_path: Path | None) -> dict[str, Any]:
    """*file_values* without the settings of plugins that are not loaded, each warned about once."""
    if not absent:
        return file_values
    sections = {_section_of(name): (name, why) for name, why in absent.items()}
    kept: dict[str, Any] = {}
    ignored: dict[str, list[str]] = {}
    for key, value in file_values.items():
        section = key.split(".")[0] if "." in key else None
        if section in sections:
            ignored.setdefault(section, []).append(f"{key} (in {file_path})")
        else:
            kept[key] = value
    for section in sections:
        prefix = f"{ENV_PREFIX}{section.upper()}_"
        ignored.setdefault(section, []).extend(sorted(var for var in environ if var.startswith(prefix)))
    for section, keys in ignored.items():
        if keys:
            name, why = sections[section]
            log.warning("settings of plugin %s ignored because the plugin is %s: %s", name, why, ", ".join(keys))
    return kept


def load_settings(
    spec: SettingsSpec,
    environ: Mapping[str, str] | None = None,
    *,
    file_values: dict[str, Any] | None = None,
    file_path: Path | None = None,
    strict: bool = True,
    absent_plugins: Mapping[str, str] | None = None,
) -> Settings:
    """Validate the file values and environment overrides against *spec*.

    :param strict: refuse keys of the file that no one declared.  The loader
        passes False for the first pass, made before plugins are loaded.
    :param absent_plugins: plugins installed but not loaded (name → why:
        "disabled", "broken: ..."). Their settings (the table named after the
        plugin, or ``ANITRACK_<PLUGIN>_*`` variables) are ignored with a
        warning naming the plugin, never refused.
    :raises ConfigError: naming the key and where its bad value came from.
    """
    environ = os.environ if environ is None else environ
    if file_values is None:
        file_values, file_path = read_config_file(environ.get(CONFIG_ENV))
    file_values = _without_absent_plugins(file_values, environ, absent_plugins or {}, file_path)
    if strict:
        unknown = sorted(k for k in file_values if k not in spec)
        if unknown:
            raise ConfigError(
                f"unknown setting(s) in {file_path}: {', '.join(unknown)} "
                "(run `anitrack config` to list the settings; a plugin's settings need the plugin installed)"
            )
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for setting in spec:
        raw, source = setting.default, "default"
        if setting.key in file_values:
            raw, source = file_values[setting.key], str(file_path)
        if setting.env_var in environ:
            raw, source = environ[setting.env_var], setting.env_var
        value = _coerce(setting, raw, source) if source != "default" else raw
        if setting.check is not None:
            problem = setting.check(value)
            if problem:
                raise ConfigError(f"setting {setting.key!r} (from {source}) {problem}; got {value!r}")
        values[setting.key] = value
        sources[setting.key] = source
    if "data_dir" in values and values["data_dir"] is None:
        values["data_dir"] = _default_data_dir()
    if "database_url" in values and not values["database_url"]:
        values["database_url"] = f"sqlite:///{Path(values['data_dir']).resolve() / 'anitrack.db'}"
    return Settings(values, spec, sources)
