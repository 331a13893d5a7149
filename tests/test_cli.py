"""The operator commands, run as an operator would."""

import json
import re
import uuid

import pytest

from anitrack_core import hookimpl


@pytest.fixture
def upgraded(run_anitrack):
    code, out, err = run_anitrack("db", "upgrade")
    assert code == 0, err
    return run_anitrack


def test_db_upgrade_creates_then_does_nothing(run_anitrack):
    code, out, err = run_anitrack("db", "upgrade")
    assert code == 0, err
    assert "applied 0001_initial" in out
    code, out, _ = run_anitrack("db", "upgrade")
    assert code == 0 and "nothing to do" in out
    code, out, _ = run_anitrack("db", "status")
    assert code == 0 and "pending migrations: none" in out


def test_commands_refuse_a_database_without_schema(run_anitrack):
    code, out, err = run_anitrack("distro", "add", "Fedora")
    assert code == 1
    assert "run `anitrack db upgrade`" in err and "0001_initial" in err


def test_user_and_token(upgraded):
    code, out, err = upgraded("user", "add", "--email", "alice@example.org", "--username", "alice", "--admin")
    assert code == 0, err
    uuid.UUID(out.strip())
    code, out, err = upgraded("user", "add", "--email", "ALICE@example.org", "--username", "alice")
    assert code == 1 and "already exists" in err
    code, out, err = upgraded("token", "add", "--email", "alice@example.org", "--description", "ci")
    assert code == 0, err
    assert re.fullmatch(r"[A-Za-z0-9]{40}", out.strip().splitlines()[-1])
    code, out, err = upgraded("token", "add", "--email", "bob@example.org")
    assert code == 1 and "no user with e-mail 'bob@example.org'" in err and out == ""


def test_distro_add_is_idempotent(upgraded):
    assert upgraded("distro", "add", "Fedora")[1].strip() == "added: Fedora"
    assert upgraded("distro", "add", "fedora")[1].strip() == "already present: Fedora"


def test_plugins_json_lists_schemes_with_their_distribution(run_anitrack):
    code, out, err = run_anitrack("plugins", "--json")
    assert code == 0, err
    report = json.loads(out)
    schemes = {row["name"]: row for row in report["schemes"]}
    assert set(schemes) >= {"RPM", "Semantic", "Calendar", "Python (PEP 440)"}
    assert schemes["RPM"]["plugin"] == "anitrack_core.builtin.schemes"
    assert schemes["RPM"]["distribution"] == "anitrack-core"
    assert {"plugins", "backends", "ecosystems"} <= set(report)


def test_plugins_text(run_anitrack):
    code, out, _ = run_anitrack("plugins")
    assert code == 0 and "anitrack_core.builtin.schemes" in out and "schemes: RPM" in out


def test_config_shows_sources(run_anitrack, tmp_path, monkeypatch):
    config = tmp_path / "anitrack.toml"
    config.write_text('topic_prefix = "org.example"\n')
    monkeypatch.setenv("ANITRACK_CONFIG", str(config))
    code, out, _ = run_anitrack("config", "--json")
    shown = json.loads(out)
    assert code == 0
    assert shown["topic_prefix"] == {"value": "org.example", "source": str(config)}
    assert shown["database_url"]["source"] == "ANITRACK_DATABASE_URL"


def test_bad_config_is_a_clear_error(run_anitrack, tmp_path, monkeypatch):
    config = tmp_path / "anitrack.toml"
    config.write_text('broker_urll = "memory://"\n')
    monkeypatch.setenv("ANITRACK_CONFIG", str(config))
    code, out, err = run_anitrack("db", "upgrade")
    assert code == 1 and "unknown setting(s)" in err and "broker_urll" in err


def test_unreachable_database_is_a_clear_error(run_anitrack, monkeypatch):
    monkeypatch.setenv("ANITRACK_DATABASE_URL", "postgresql://nobody:hunter2@127.0.0.1:1/anitrack")
    code, out, err = run_anitrack("db", "upgrade")
    assert code == 1
    assert "cannot reach the database at postgresql://nobody:***@127.0.0.1:1/anitrack" in err
    assert "hunter2" not in err


def test_missing_sqlite_directory_is_a_clear_error(run_anitrack, monkeypatch, tmp_path):
    monkeypatch.setenv("ANITRACK_DATABASE_URL", f"sqlite:///{tmp_path}/missing/dir/a.db")
    code, _, err = run_anitrack("db", "upgrade")
    assert code == 1 and "does not exist" in err
    assert not (tmp_path / "missing").exists()


def test_versions_command(run_anitrack):
    code, out, err = run_anitrack("versions", "1.0", "1.10", "1.9", "2.0rc1", "--scheme", "rpm")
    assert code == 0, err
    assert out.split("\n")[:4] == ["2.0rc1    (pre-release)", "1.10", "1.9", "1.0"]
    code, out, _ = run_anitrack("versions", "v1.0.0", "1.2.0", "junk", "--scheme", "Semantic", "--json")
    data = json.loads(out)
    assert data["scheme"] == "Semantic"
    assert [row["version"] for row in data["versions"]] == ["1.2.0", "v1.0.0", "junk"]
    assert data["versions"][2]["valid"] is False


def test_versions_command_errors(run_anitrack):
    code, _, err = run_anitrack("versions", "1.0", "--scheme", "Debian")
    assert code == 1 and "unknown version scheme 'Debian'" in err
    code, _, err = run_anitrack("versions", "1.0", "junk", "--scheme", "Semantic", "--strict")
    assert code == 1 and "'1.0' is not a valid Semantic version" in err


@pytest.mark.parametrize("argv", [["--help"], ["db", "--help"], ["db", "upgrade", "--help"], ["user", "add", "--help"],
                                  ["token", "add", "--help"], ["distro", "add", "--help"], ["plugins", "--help"],
                                  ["serve", "--help"], ["versions", "--help"], ["config", "--help"]])
def test_help_everywhere(run_anitrack, argv):
    code, out, _ = run_anitrack(*argv)
    assert code == 0 and "usage: anitrack" in out


def test_usage_errors_exit_2(run_anitrack):
    code, _, err = run_anitrack("user", "add", "--email", "x@example.org")
    assert code == 2 and "--username" in err


@pytest.mark.parametrize("how", ["file", "environment"])
def test_the_settings_of_a_disabled_plugin_are_ignored_with_a_warning_naming_it(run_anitrack, tmp_path,
                                                                                 monkeypatch, how, caplog):
    if how == "file":
        config = tmp_path / "anitrack.toml"
        config.write_text('[github]\ntoken = "s3cret"\n')
        monkeypatch.setenv("ANITRACK_CONFIG", str(config))
    else:
        monkeypatch.setenv("ANITRACK_GITHUB_TOKEN", "s3cret")
    monkeypatch.setenv("ANITRACK_DISABLE_PLUGINS", "github")
    with caplog.at_level("WARNING", logger="anitrack_core.config"):
        code, out, err = run_anitrack("config", "--json")
    assert code == 0, err
    assert "github.token" not in json.loads(out)
    assert "settings of plugin github ignored because the plugin is disabled" in caplog.text
    assert ("github.token" if how == "file" else "ANITRACK_GITHUB_TOKEN") in caplog.text
    assert "s3cret" not in caplog.text


def test_the_settings_of_a_broken_plugin_do_not_stop_the_service(run_anitrack, tmp_path, monkeypatch, caplog):
    config = tmp_path / "anitrack.toml"
    config.write_text('[github]\ntoken = "s3cret"\n')
    monkeypatch.setenv("ANITRACK_CONFIG", str(config))

    import anitrack_backend_github

    monkeypatch.setattr(anitrack_backend_github, "anitrack_declare_settings",
                        hookimpl(lambda settings: (_ for _ in ()).throw(RuntimeError("cannot start"))))
    with caplog.at_level("WARNING"):
        code, out, err = run_anitrack("config", "--json")
    assert code == 0, err
    assert "settings of plugin github ignored because the plugin is broken" in caplog.text
