"""The API description (anitrack_web/openapi.json) against OpenAPI 3.1, the routes and the live server.

The live part drives schemathesis: for every operation of the served document
it sends the document's examples, its boundary cases and a bounded number of
generated requests (valid and invalid, the POSTs with the test token), and
checks each answer: no 5xx, a documented status, the documented content type,
headers and body, valid input accepted and invalid input refused.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import pytest
import schemathesis
from openapi_spec_validator import validate
from schemathesis.core.failures import Failure
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import positive_data_acceptance

from anitrack_web.app import API_VERSION, create_app
from anitrack_web.docs import DOCS_PAGE, OPENAPI_PATH, load_document, render_html

#: routes that are not part of the API description (the operator's probe, the docs page itself)
UNDOCUMENTED_ROUTES = {("GET", "/healthz"), ("GET", DOCS_PAGE)}
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _operations(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(method.upper(), path) for path, item in document["paths"].items() for method in METHODS if method in item}


def _openapi_path(rule: str) -> str:
    """A Bottle rule (``/api/project/<distro>/<package_name:path>``) as an OpenAPI path."""
    return re.sub(r"<([A-Za-z_][A-Za-z0-9_]*)(?::[^>]*)?>", r"{\1}", rule)


# --- the document itself ------------------------------------------------------------------------------


def test_packaged_document_is_valid_openapi_3_1():
    document = load_document()
    assert document["openapi"].startswith("3.1.")
    validate(document)  # raises on any violation of the OpenAPI 3.1 specification
    assert document["info"]["version"] == API_VERSION


def test_served_document_is_valid_and_names_this_server(api):
    answer = api.get(OPENAPI_PATH)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("application/json")
    document = answer.json()
    validate(document)
    assert document["servers"][0]["url"] == api.runtime.settings.base_url.rstrip("/")
    schemas = document["components"]["schemas"]
    assert schemas["BackendName"]["examples"] == api.runtime.plugins.backends.names()
    assert re.fullmatch(schemas["BackendName"]["pattern"], " pYpI ")
    assert not re.fullmatch(schemas["BackendName"]["pattern"], "PyPI2")
    assert schemas["BackendRequiringVersionUrl"]["examples"] == ["custom", "folder"]
    assert "Python (PEP 440)" in schemas["SchemeName"]["examples"]
    assert re.fullmatch(schemas["SchemeName"]["pattern"], "python (pep 440)")
    assert re.fullmatch(schemas["SchemeName"]["pattern"], "  ")  # blank: the default scheme


def test_every_route_is_documented_and_every_operation_is_routed(runtime):
    app = create_app(runtime)
    # the web pages are for people, not part of the API description
    routed = {(route.method.upper(), _openapi_path(route.rule)) for route in app.routes
              if route.rule.startswith(("/api", "/metrics", "/healthz", "/static/docs/"))}
    documented = _operations(load_document())
    assert routed - UNDOCUMENTED_ROUTES - documented == set(), "routes missing from openapi.json"
    assert documented - routed == set(), "operations in openapi.json that no route serves"


# --- the HTML page ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api", "/api/"])
def test_api_redirects_to_the_documentation(api, path):
    answer = api.get(path, allow_redirects=False)
    assert answer.status_code == 302
    assert answer.headers["Location"] == DOCS_PAGE


def test_documentation_page_lists_every_operation(api):
    answer = api.get("/api")  # follows the redirect
    assert answer.status_code == 200 and answer.url == api.url(DOCS_PAGE)
    assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
    assert answer.headers["Content-Security-Policy"] == ("default-src 'none'; style-src 'unsafe-inline'; "
                                                         "frame-ancestors 'none'; base-uri 'none'")
    page = answer.text
    document = api.get(OPENAPI_PATH).json()
    for method, path in _operations(document):
        assert f"{method}</span> <code>{path}</code>" in page, (method, path)
    for name in document["components"]["schemas"]:
        assert f'id="schema-{name}"' in page
    assert "<script" not in page and "http://" not in page.replace(document["servers"][0]["url"], "")
    assert "../../api/v2/openapi.json" in page


def test_documentation_page_escapes_the_document():
    document = load_document()
    hostile = '<script>alert("x")</script>'
    document["info"]["title"] = hostile
    document["paths"]["/api/v2/projects/"]["get"]["description"] = f"`{hostile}` and **{hostile}**"
    document["components"]["schemas"]["Project"]["properties"]["name"]["description"] = hostile
    page = render_html(document)
    assert "<script" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page


# --- the live server against the document (schemathesis) ----------------------------------------------

#: generated requests per operation in the fuzzing phase (the examples and coverage phases come on top)
MAX_EXAMPLES = 12
SEED = 20240601

#: 400s that answer valid-looking input by a rule the document states only in words (each in its
#: operation's or field's description), so no schema-valid request can be told apart from them
_PACKAGE_LOOKUP = re.compile(r'(Project ".*" in ecosystem ".*"|Distribution ".*") not found', re.DOTALL)
_EXCLUSIVE = ["pattern and homepage are mutually exclusive.  Specify only one."]
_TEMPORARY = re.compile(r"Missing data for required field \(no stored project matches")
_CHECK_RULES = {"name": _TEMPORARY, "homepage": _TEMPORARY, "backend": _TEMPORARY,
                "dry_run": re.compile("Cannot be false for a temporary project"), "regex": re.compile(""),
                "version_pattern": re.compile("version_pattern is invalid"),
                "version_url": re.compile(".*requires version_url$")}


_PROJECT_RULES = {"regex": re.compile("invalid regular expression"),
                  "version_pattern": re.compile("version_pattern is invalid"),
                  "version_url": re.compile(".*requires version_url$")}


def _documented_refusal(case: schemathesis.Case, response: schemathesis.Response) -> bool:
    if response.status_code != 400:
        return False
    body = response.json()
    if case.method == "GET" and case.path in ("/api/projects", "/api/projects/"):
        # v1: pattern and homepage exclude each other (a rule between two parameters)
        query = case.query or {}
        return body["error"] == _EXCLUSIVE and bool(query.get("pattern")) and bool(query.get("homepage"))
    if case.method == "POST" and case.path == "/api/v2/packages/":
        # the project or distribution named does not exist (Anitya answers 400 too)
        return "message" not in body and bool(_PACKAGE_LOOKUP.fullmatch(body["error"]))
    # (the two check operations below are described once their routes, anitrack_web/api_checks.py, are served)
    if case.method == "POST" and case.path == "/api/v2/versions/":
        # the rules of a check stated in words: how the project is found, what a temporary one needs,
        # that a regex compiles, the Calendar pattern, the backends that require version_url
        if "message" not in body:
            return body["error"] == "More than one project found"
        return bool(body["message"]) and all(
            _CHECK_RULES.get(field, re.compile("(?!)")).match(problem) for field, problem in body["message"].items())
    if case.method == "POST" and case.path == "/api/version/get":
        # v1: an archived project, or a check that failed upstream
        return isinstance(body["error"], str) and body["error"] != "No project id specified"
    if case.method == "POST" and case.path == "/api/v2/webhooks/":
        # rules stated in words: where a webhook may be sent, and that the ids and names it filters on exist
        return bool(body.get("message")) and set(body["message"]) <= {"url", "projects", "distributions", "ecosystems"}
    if case.method == "POST" and case.path == "/api/v2/projects/":
        # rules stated in words: the regex must compile, version_pattern follows the Calendar grammar
        # when the scheme is Calendar, and some backends require version_url
        return bool(body.get("message")) and all(
            _PROJECT_RULES.get(field, re.compile("(?!)")).match(problem) for field, problem in body["message"].items())
    return False


def valid_input_is_accepted(ctx: Any, response: schemathesis.Response, case: schemathesis.Case) -> bool | None:
    """schemathesis' positive_data_acceptance, less the refusals :func:`_documented_refusal` allows."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except Failure:
        if _documented_refusal(case, response):
            return None
        raise


def _seed(api, upstream) -> None:
    """Records for the document's examples to find: project 1 with versions, a mapped package.

    The custom project's page is served by a loopback fake upstream, so checks of it succeed.
    """
    from anitrack_core.db import distros, packages, projects
    from anitrack_core.db.models import ProjectVersion

    with api.runtime.db.connection_context():
        requests_ = projects.create_project(api.runtime.plugins, name="requests", backend="PyPI",
                                            homepage="https://pypi.org/project/requests", pre_release_filter="rc")
        for day, version in enumerate(("2.32.2", "2.32.3", "2.33.0rc1"), start=1):
            ProjectVersion.create(project=requests_, version=version, created_on=datetime(2024, 5, day))
        upstream.route("/Download/Releases", '<a href="geany-1.38.tar.gz">\n<a href="geany-2.0.tar.gz">\n')
        geany = projects.create_project(api.runtime.plugins, name="geany", backend="custom",
                                        homepage="https://www.geany.org/",
                                        version_url=upstream.url("/Download/Releases"))
        packages.map_package(geany, distros.find_distro("Fedora"), "geany")


def _no_dns(host, port):
    """Generated webhook URLs name made-up hosts: they resolve nowhere, and nothing asks the internet."""
    raise OSError(f"{host} is not resolved in tests")


@pytest.fixture
def live_schema(api, fake_upstream, monkeypatch):
    from anitrack_core.check.http import guard as netguard

    monkeypatch.setattr(netguard, "system_resolver", _no_dns)
    _seed(api, fake_upstream)
    config = schemathesis.Config.from_dict({
        "seed": SEED,
        "base-url": api.base,
        "request-timeout": 10,
        # generation is seeded; only the wall-clock health check could tell a slow machine from a fast one
        "suppress-health-check": ["too_slow"],
        "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True, "database": "none"},
        "phases": {"stateful": {"enabled": False}},
        "auth": {"openapi": {"apiToken": {"api_key": f"Token {api.token}"}}},
    })
    return schemathesis.openapi.from_url(api.url(OPENAPI_PATH), config=config)


@pytest.fixture(autouse=True)
def _node_id_for_schemathesis(request):
    # schemathesis 4.32's from_fixture() reads and rewrites ``item._nodeid``, which pytest 9.2
    # no longer has (it keeps ``_id``); give it the attribute it expects (harmless otherwise)
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid


live = schemathesis.pytest.from_fixture("live_schema")


def documented_check_failure(ctx: Any, response: schemathesis.Response, case: schemathesis.Case) -> bool | None:
    """A check that fails upstream is a documented 500 of the check operations, with the error shape."""
    if response.status_code >= 500:
        assert (case.method, case.path) == ("POST", "/api/v2/versions/"), f"{response.status_code} from {case.path}"
        body = response.json()
        assert body["status"] == 500 and body["error"].startswith("Error when checking for new version: ")
    return None


@live.parametrize()
def test_live_server_conforms_to_the_document(case, api):
    # generated projects name hosts that resolve nowhere here (tests never touch the internet, see
    # conftest.py): their checks fail, which the check operation documents as a 500 with a JSON error
    case.call_and_validate(base_url=api.base, excluded_checks=[positive_data_acceptance, not_a_server_error],
                           additional_checks=[valid_input_is_accepted, documented_check_failure])


def test_access_token_query_parameter_is_accepted_where_documented_only(api):
    document = load_document()
    create = document["paths"]["/api/v2/projects/"]["post"]
    assert {"accessToken": []} in create["security"]
    answer = api.post(f"/api/v2/projects/?access_token={api.token}", auth=False,
                      json={"name": "tokenless", "homepage": "https://example.org/t", "backend": "PyPI"})
    assert answer.status_code == 201, answer.text
    check = document["paths"]["/api/v2/versions/"]["post"]
    assert {"accessToken": []} in check["security"]
    answer = api.post(f"/api/v2/versions/?access_token={api.token}", auth=False, json={"id": answer.json()["id"]})
    assert answer.status_code == 200, answer.text
    package = document["paths"]["/api/v2/packages/"]["post"]
    assert {"accessToken": []} not in package["security"]
    answer = api.post(f"/api/v2/packages/?access_token={api.token}", auth=False,
                      json={"distribution": "Fedora", "package_name": "x", "project_name": "tokenless",
                            "project_ecosystem": "pypi"})
    assert answer.status_code == 401 and answer.headers["WWW-Authenticate"] == "Token"


def test_the_documents_project_fields_are_the_stores():
    """The fields of a project are listed once (anitrack_core.db.projects); the document must follow."""
    from anitrack_core.db.projects import DESCRIPTION_FIELDS

    schemas = load_document()["components"]["schemas"]
    assert list(schemas["ProjectCreate"]["properties"]) == [*DESCRIPTION_FIELDS, "insecure", "check_release"]
    assert list(schemas["VersionCheck"]["properties"]) == ["id", *DESCRIPTION_FIELDS, "insecure", "releases_only",
                                                           "dry_run"]
