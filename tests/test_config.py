"""Settings: TOML file, environment overrides, validation naming the bad key."""

from pathlib import Path

import pytest

from anitrack_core.config import core_settings, load_settings, read_config_file
from anitrack_core.errors import ConfigError


def load(tmp_path, toml=None, env=None, spec=None):
    environ = dict(env or {})
    if toml is not None:
        path = tmp_path / "anitrack.toml"
        path.write_text(toml, encoding="utf-8")
        environ["ANITRACK_CONFIG"] = str(path)
    return load_settings(spec or core_settings(), environ)


def test_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    settings = load(tmp_path)
    assert settings.data_dir == tmp_path / "anitrack"
    assert settings.database_url == f"sqlite:///{tmp_path / 'anitrack' / 'anitrack.db'}"
    assert settings.database_url.startswith("sqlite:////")
    assert settings.broker_url == "memory://"
    assert settings.topic_prefix == "org.anitrack"
    assert settings.events_exchange == "amq.topic"
    assert settings.allow_private_upstreams is False
    assert settings.source("broker_url") == "default"


def test_file_then_environment(tmp_path):
    settings = load(tmp_path, 'topic_prefix = "org.example"\nbroker_url = "redis://localhost:6379/0"\n',
                    {"ANITRACK_TOPIC_PREFIX": "org.env", "ANITRACK_ALLOW_PRIVATE_UPSTREAMS": "1",
                     "ANITRACK_DISABLE_PLUGINS": "github, gitlab"})
    assert settings.topic_prefix == "org.env"
    assert settings.source("topic_prefix") == "ANITRACK_TOPIC_PREFIX"
    assert settings.broker_url == "redis://localhost:6379/0"
    assert settings.source("broker_url").endswith("anitrack.toml")
    assert settings.allow_private_upstreams is True
    assert settings.disable_plugins == ["github", "gitlab"]


def test_plugin_sections(tmp_path):
    spec = core_settings()
    spec.current_plugin = "github"
    spec.add("github.token", secret=True)
    spec.add("github.page_size", type=int, default=50)
    settings = load(tmp_path, '[github]\ntoken = "s3cret"\n', {"ANITRACK_GITHUB_PAGE_SIZE": "20"}, spec)
    assert settings.section("github") == {"token": "s3cret", "page_size": 20}
    shown = {key: value for key, value, _ in settings.public_items()}
    assert shown["github.token"] == "********"


@pytest.mark.parametrize("toml, env, message", [
    ("colour = 'blue'\n", {}, "unknown setting\\(s\\) in .*anitrack.toml: colour"),
    ("[github]\ntoken = 'x'\n", {}, "unknown setting\\(s\\) in .*: github.token .*plugin"),
    ("allow_private_upstreams = 'yes'\n", {}, "setting 'allow_private_upstreams' .*expected true or false"),
    (None, {"ANITRACK_ALLOW_PRIVATE_UPSTREAMS": "maybe"},
     "setting 'allow_private_upstreams' \\(from ANITRACK_ALLOW_PRIVATE_UPSTREAMS\\): expected true or false"),
    (None, {"ANITRACK_DATABASE_URL": "mysql://x/y"}, "setting 'database_url' .*must start with sqlite://"),
    ("base_url = 'ftp://x'\n", {}, "setting 'base_url' .*http:// or https://"),
    ("topic_prefix = ''\n", {}, "setting 'topic_prefix' .*must not be empty"),
    ("disable_plugins = 'github'\n", {}, "expected a list of strings"),
    ("topic_prefix = = 1\n", {}, "is not valid TOML"),
    ("[a.b]\nc = 1\n", {}, "unknown setting.*a.b"),
    ("[auth]\nproviders = 'github'\n", {}, "setting 'auth.providers' .*expected a table \\[auth.providers\\]"),
    ("[auth.admin_emails]\nx = 1\n", {}, "setting 'auth.admin_emails' .*expected a value, got a table"),
    ("[auth.providers]\ngithub = 1\n", {}, "setting 'auth.providers' .*must hold one table per entry"),
    ('[check.host_concurrency]\n"https://pypi.org" = 64\n', {},
     "setting 'check.host_concurrency' .*'https://pypi.org', which is not a host name"),
    ('[check.host_concurrency]\n"pypi.org" = 0\n', {}, "setting 'check.host_concurrency' .*bound 0: .*1 or more"),
    ('[check.host_concurrency]\n"pypi.org" = "64"\n', {}, "setting 'check.host_concurrency' .*whole number"),
    ("[check]\nhost_concurrency = 64\n", {}, "setting 'check.host_concurrency' .*expected a table"),
    (None, {"ANITRACK_CHECK_HOST_CONCURRENCY": "pypi.org=64"},
     "setting 'check.host_concurrency' .*is set in the configuration file"),
])
def test_bad_settings_name_the_key(tmp_path, toml, env, message):
    with pytest.raises(ConfigError, match=message):
        load(tmp_path, toml, env)


def test_host_bounds_are_read_from_their_table(tmp_path):
    settings = load(tmp_path, '[check.host_concurrency]\n"PyPI.org" = 64\n"::1" = 2\n', {})
    assert settings["check.host_concurrency"] == {"PyPI.org": 64, "::1": 2}
    assert ("check.host_concurrency.PyPI.org", 64, str(tmp_path / "anitrack.toml")) in settings.public_items()


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        read_config_file(tmp_path / "nope.toml")


def test_declaring_twice_or_badly_is_refused():
    spec = core_settings()
    with pytest.raises(ConfigError, match="declared twice"):
        spec.add("broker_url")
    with pytest.raises(ConfigError, match="invalid setting key"):
        spec.add("GitHub.Token")
    with pytest.raises(ConfigError, match="clashes with a core setting"):
        spec.add("broker_url.x")
    with pytest.raises(ConfigError, match="unsupported type"):
        spec.add("x.y", type=set)


def test_int_from_env_is_checked(tmp_path):
    spec = core_settings()
    spec.add("x.n", type=int, default=1)
    with pytest.raises(ConfigError, match="setting 'x.n' \\(from ANITRACK_X_N\\): expected an integer"):
        load(tmp_path, None, {"ANITRACK_X_N": "ten"}, spec)
    assert load(tmp_path, None, {"ANITRACK_X_N": "10"}, spec)["x.n"] == 10
    assert isinstance(load(tmp_path, None, {"ANITRACK_DATA_DIR": "~/x"}).data_dir, Path)
