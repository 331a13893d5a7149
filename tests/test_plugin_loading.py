"""The loader: built-ins through the hooks, broken plugins isolated, switches honoured."""

import types

import pytest

from anitrack_core import hookimpl
from anitrack_core.backend import Backend


def make_backend(name):
    return type(name.replace(" ", ""), (Backend,), {"name": name, "get_versions": lambda self, p, h: []})


def plugin_module(name, **hooks):
    module = types.ModuleType(name)
    for hook_name, function in hooks.items():
        setattr(module, hook_name, hookimpl(function))
    return module


def test_builtin_schemes_are_registered_through_the_hook(anitrack_plugins):
    assert set(anitrack_plugins.schemes.names()) >= {"RPM", "Semantic", "Calendar", "Python (PEP 440)"}
    info = anitrack_plugins.info["anitrack_core.builtin.schemes"]
    assert info.status == "builtin"
    assert "RPM" in info.schemes
    assert anitrack_plugins.schemes.canonical_name("python (pep 440)") == "Python (PEP 440)"


def test_a_plugin_registers_backends_ecosystems_and_settings(anitrack_plugins, register_plugin):
    foo = make_backend("Foo")

    class FooEcosystem:
        name = "foo"
        default_backend = "Foo"

    def anitrack_register_backends(registry):
        registry.add(foo)

    def anitrack_register_ecosystems(registry):
        registry.add(FooEcosystem)

    def anitrack_declare_settings(settings):
        settings.add("foo.token", secret=True, help="token")

    info = register_plugin(plugin_module("foo_plugin", anitrack_register_backends=anitrack_register_backends,
                                         anitrack_register_ecosystems=anitrack_register_ecosystems,
                                         anitrack_declare_settings=anitrack_declare_settings), "foo")
    assert info.status == "loaded", info.error
    assert info.backends == ["Foo"] and info.ecosystems == ["foo"] and info.settings == ["foo.token"]
    assert anitrack_plugins.backends.get("FOO") is foo
    assert anitrack_plugins.backends.plugin_of("foo") == "foo"


def test_a_duplicate_name_marks_the_second_plugin_broken_and_keeps_nothing_of_it(anitrack_plugins,
                                                                                  register_plugin):
    first, second = make_backend("Gitea"), make_backend("gitea")
    other = make_backend("Other")
    register_plugin(plugin_module("one", anitrack_register_backends=lambda registry: registry.add(first)), "one")

    def register_two(registry):
        registry.add(other)
        registry.add(second)

    info = register_plugin(plugin_module("two", anitrack_register_backends=register_two), "two")
    assert info.status == "broken"
    assert "'gitea' is already registered by one" in info.error
    assert anitrack_plugins.backends.get("gitea") is first
    assert "Other" not in anitrack_plugins.backends, "a broken plugin's registrations are rolled back"
    assert not anitrack_plugins.pm.has_plugin("two")


def test_duplicate_scheme_name_is_refused(register_plugin):
    class MyRpm:
        name = "rpm"

        def sort_key(self, raw):
            return (raw,)

    info = register_plugin(
        plugin_module("schemes2", anitrack_register_version_schemes=lambda registry: registry.add(MyRpm)))
    assert info.status == "broken"
    assert "version scheme name 'rpm' is already registered by anitrack_core.builtin.schemes" in info.error


def test_a_plugin_raising_in_a_hook_is_broken_not_fatal(anitrack_plugins, register_plugin):
    def explode(registry):
        raise RuntimeError("boom")

    info = register_plugin(plugin_module("exploding", anitrack_register_backends=explode))
    assert info.status == "broken" and info.error == "RuntimeError: boom"
    assert "RPM" in anitrack_plugins.schemes


def test_a_plugin_with_an_unknown_hook_is_reported_incompatible(register_plugin):
    info = register_plugin(plugin_module("old", anitrack_register_backend=lambda registry: None))
    assert info.status == "broken"
    assert "unknown hook(s) anitrack_register_backend" in info.error


def test_a_plugin_with_a_wrong_argument_is_reported(register_plugin):
    info = register_plugin(plugin_module("badargs", anitrack_register_backends=lambda registry, extra: None))
    assert info.status == "broken"
    assert "cannot be registered" in info.error


def test_observation_hooks_isolate_failures(anitrack_plugins, register_plugin, caplog):
    seen = []

    def bad(project, result):
        raise ValueError("observer failed")

    def good(project, result):
        seen.append((project, result))

    register_plugin(plugin_module("bad", anitrack_project_checked=bad))
    register_plugin(plugin_module("good", anitrack_project_checked=good))
    anitrack_plugins.call_each("anitrack_project_checked", project="p", result="r")
    assert seen == [("p", "r")]
    assert "plugin bad failed in anitrack_project_checked" in caplog.text


def observer(name, seen, **options):
    module = types.ModuleType(name)

    def anitrack_project_checked(project, result):
        seen.append(name)

    module.anitrack_project_checked = hookimpl(**options)(anitrack_project_checked)
    return module


def test_observers_run_in_pluggys_order_tryfirst_and_trylast_included(anitrack_plugins, register_plugin):
    seen = []
    register_plugin(observer("last", seen, trylast=True))
    register_plugin(observer("plain", seen))
    register_plugin(observer("first", seen, tryfirst=True))
    anitrack_plugins.call_each("anitrack_project_checked", project="p", result="r")
    assert seen == ["first", "plain", "last"]


def test_a_wrapper_implementation_runs_around_the_others(anitrack_plugins, register_plugin):
    seen = []
    module = types.ModuleType("wrapping")

    def anitrack_project_checked(project, result):
        seen.append("before")
        outcome = yield
        seen.append(("after", outcome))
        return outcome

    module.anitrack_project_checked = hookimpl(wrapper=True)(anitrack_project_checked)
    assert register_plugin(module).status == "loaded"
    register_plugin(observer("inner", seen))
    anitrack_plugins.call_each("anitrack_project_checked", project="p", result="r")
    assert seen == ["before", "inner", ("after", [])]  # pluggy drops None results


def test_a_wrapper_of_a_registration_hook_runs_too(anitrack_plugins, register_plugin):
    seen = []
    module = types.ModuleType("regwrap")

    def anitrack_register_backends(registry):
        seen.append("wrapped")
        return (yield)

    module.anitrack_register_backends = hookimpl(wrapper=True)(anitrack_register_backends)
    assert register_plugin(module).status == "loaded"
    assert seen == ["wrapped"]


def test_the_trace_switch_logs_the_hooks_the_service_calls(caplog):
    from anitrack_core.runtime import load_runtime

    with caplog.at_level("INFO", logger="anitrack_core.plugins"):
        runtime = load_runtime({"ANITRACK_TRACE_HOOKS": "1", "ANITRACK_NO_PLUGIN_AUTOLOAD": "1"}, database=False)
        runtime.plugins.call_each("anitrack_project_checked", project="p", result="r")
    assert "hook anitrack_register_version_schemes" in caplog.text
    assert "hook anitrack_project_checked" in caplog.text


def test_without_the_trace_switch_nothing_is_traced(caplog):
    from anitrack_core.runtime import load_runtime

    with caplog.at_level("INFO", logger="anitrack_core.plugins"):
        runtime = load_runtime({"ANITRACK_NO_PLUGIN_AUTOLOAD": "1"}, database=False)
        runtime.plugins.call_each("anitrack_project_checked", project="p", result="r")
    assert "hook anitrack_" not in caplog.text


@pytest.mark.parametrize("hook", ["anitrack_register_backends", "anitrack_register_ecosystems",
                                  "anitrack_register_version_schemes", "anitrack_declare_settings",
                                  "anitrack_project_checked"])
def test_every_hook_has_a_typed_documented_spec(anitrack_plugins, hook):
    caller = getattr(anitrack_plugins.pm.hook, hook)
    assert caller.spec is not None
    function = caller.spec.function
    assert function.__doc__ and ":param" in function.__doc__
    assert set(function.__annotations__) >= set(caller.spec.argnames)
