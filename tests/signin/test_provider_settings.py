"""[auth.providers.<name>] tables: read, checked at start-up with the bad key named, secrets masked."""

import json

import pytest

from anitrack_core.errors import ConfigError
from anitrack_core.runtime import load_runtime


@pytest.fixture
def config(tmp_path, monkeypatch, anitrack_env):
    """Write the TOML settings file and point ANITRACK_CONFIG at it."""

    def write(text):
        path = tmp_path / "anitrack.toml"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setenv("ANITRACK_CONFIG", str(path))
        return path

    monkeypatch.setenv("ANITRACK_NO_PLUGIN_AUTOLOAD", "1")
    return write


def providers():
    return load_runtime(database=False).identity_providers


def test_presets_and_generic_kinds_are_read(config):
    config('''
[auth.providers.github]
kind = "github"
client_id = "gh-id"
client_secret = "gh-secret"

[auth.providers.corp]
kind = "oidc"
issuer = "https://sso.example.org/realms/main"
client_id = "anitrack"
client_secret = "s3cret"
display_name = "Example SSO"
scopes = "openid email"
''')
    found = providers()
    assert list(found) == ["github", "corp"]
    assert found["github"].display_name == "GitHub"
    assert found["github"].options["authorize_url"] == "https://github.com/login/oauth/authorize"
    assert found["corp"].display_name == "Example SSO"
    assert found["corp"].options["scopes"] == ["openid", "email"]


@pytest.mark.parametrize("table, named, problem", [
    ('kind = "nope"\nclient_id = "a"\nclient_secret = "b"', "auth.providers.p.kind", "unknown identity provider kind"),
    ('client_id = "a"\nclient_secret = "b"', "auth.providers.p.kind", "is missing"),
    ('kind = "oidc"\nclient_id = "a"\nclient_secret = "b"', "auth.providers.p.issuer", "is required"),
    ('kind = "github"\nclient_secret = "b"', "auth.providers.p.client_id", "is required"),
    ('kind = "oidc"\nissuer = "http://sso.example.org"\nclient_id = "a"\nclient_secret = "b"',
     "auth.providers.p.issuer", "https://"),
    ('kind = "github"\nclient_id = "a"\nclient_secret = "b"\nclientid = "typo"', "auth.providers.p.clientid",
     "unknown key"),
    ('kind = "github"\nclient_id = 12\nclient_secret = "b"', "auth.providers.p.client_id", "expected a string"),
    ('kind = "github"\nclient_id = "a"\nclient_secret = "b"\nscopes = [1]', "auth.providers.p.scopes",
     "list of scope names"),
])
def test_a_bad_provider_table_stops_start_up_naming_the_key(config, table, named, problem):
    path = config(f"[auth.providers.p]\n{table}\n")
    with pytest.raises(ConfigError) as caught:
        providers()
    message = str(caught.value)
    assert f"'{named}'" in message and problem in message and str(path) in message


def test_a_provider_name_must_suit_a_url(config):
    config('[auth.providers."My SSO"]\nkind = "github"\nclient_id = "a"\nclient_secret = "b"\n')
    with pytest.raises(ConfigError, match="lower-case letters"):
        providers()


def test_environment_variables_set_any_key_and_can_define_a_provider(config, monkeypatch):
    config('[auth.providers.my-sso]\nkind = "oidc"\nissuer = "https://sso.example.org"\nclient_id = "a"\n')
    monkeypatch.setenv("ANITRACK_AUTH_PROVIDERS_MY_SSO_CLIENT_SECRET", "from-env")
    monkeypatch.setenv("ANITRACK_AUTH_PROVIDERS_GITLAB_KIND", "gitlab")
    monkeypatch.setenv("ANITRACK_AUTH_PROVIDERS_GITLAB_CLIENT_ID", "gl")
    monkeypatch.setenv("ANITRACK_AUTH_PROVIDERS_GITLAB_CLIENT_SECRET", "gl-secret")
    found = providers()
    assert found["my-sso"].options["client_secret"] == "from-env"
    assert found["gitlab"].options["issuer"] == "https://gitlab.com"


def test_an_environment_variable_names_its_key(config, monkeypatch):
    config("")
    monkeypatch.setenv("ANITRACK_AUTH_PROVIDERS_GITHUB_CLIENT_ID", "a")
    with pytest.raises(ConfigError, match="'auth.providers.github.kind'.*is missing"):
        providers()
    monkeypatch.setenv("ANITRACK_AUTH_PROVIDERS_GITHUB_COLOUR", "red")
    with pytest.raises(ConfigError, match="ANITRACK_AUTH_PROVIDERS_GITHUB_COLOUR"):
        providers()


def test_plain_http_is_accepted_on_loopback_only(config):
    config('[auth.providers.dev]\nkind = "oidc"\nissuer = "http://127.0.0.1:9000"\nclient_id = "a"\n'
           'client_secret = "b"\n')
    assert providers()["dev"].options["issuer"] == "http://127.0.0.1:9000"


def test_anitrack_config_masks_client_secrets(config, run_anitrack):
    config('[auth]\nadmin_emails = ["root@example.org"]\n\n'
           '[auth.providers.github]\nkind = "github"\nclient_id = "visible-id"\nclient_secret = "hidden-secret"\n')
    code, out, err = run_anitrack("config", "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert shown["auth.providers.github.client_id"]["value"] == "visible-id"
    assert shown["auth.providers.github.client_secret"]["value"] == "********"
    assert "hidden-secret" not in out
    assert shown["auth.admin_emails"]["value"] == "['root@example.org']"


def test_the_providers_table_is_not_one_environment_variable(config, monkeypatch):
    config("")
    monkeypatch.setenv("ANITRACK_AUTH_PROVIDERS", "github")
    with pytest.raises(ConfigError, match="auth.providers"):
        providers()


def test_anitrack_plugins_lists_the_provider_kinds(config, run_anitrack):
    config("")
    code, out, _ = run_anitrack("plugins")
    assert code == 0
    assert "identity providers: oidc, oauth2, github, gitlab, google, fedora" in out
