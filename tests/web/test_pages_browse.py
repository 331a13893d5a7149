"""The read pages over HTTP: projects list, search, updates, the project page, distributions, logs, home.

Projects are seeded straight in the store (tests/web/helpers.py) or through
the API; every assertion is on what the server answers to a person's browser.
"""

import re
from datetime import datetime

import pytest
import requests

from anitrack_core.db import accounts
from anitrack_core.db.models import Project, ProjectFlag, Run

from .helpers import add_project
from .pages import signed_in, text_of


def get(api, path, client=requests, **kwargs):
    return client.get(api.url(path), timeout=10, allow_redirects=False, **kwargs)


def names_in(html):
    """The project names of a projects table, in order."""
    return re.findall(r'<td><a href="/project/\d+/">([^<]*)</a></td>', html)


@pytest.fixture
def catalogue(api):
    ids = {
        "alpha": add_project(api, name="alpha", homepage="https://alpha.example/", backend="PyPI",
                             versions=["1.0", "2.0"], latest="2.0",
                             packages_=[("Fedora", "python-alpha")]),
        "Beta": add_project(api, name="Beta", homepage="https://zeta.example/beta", backend="GitHub",
                            version_url="beta/beta", versions=["0.9"], latest="0.9"),
        "gamma": add_project(api, name="gamma", homepage="https://gamma.example/", backend="custom",
                             packages_=[("Debian", "gamma-tools")]),
    }
    return ids


@pytest.fixture
def people(api):
    with api.runtime.db.connection_context():
        admin = accounts.add_user("root@example.org", "root", admin=True)
        user = accounts.add_user("alice@example.org", "alice")
    return {"admin": signed_in(api, admin), "user": signed_in(api, user)}


# ---------------------------------------------------------------- the projects list

def test_projects_list_is_sorted_by_name_ignoring_case(api, catalogue):
    page = get(api, "/projects/")
    assert page.status_code == 200
    assert names_in(page.text) == ["alpha", "Beta", "gamma"]
    assert '<th scope="col" aria-sort="ascending"><a href="/projects/?sort=-name">Name' in page.text


@pytest.mark.parametrize("sort, expected", [
    ("-name", ["gamma", "Beta", "alpha"]),
    ("name_desc", ["gamma", "Beta", "alpha"]),
    ("homepage", ["alpha", "gamma", "Beta"]),
    ("backend_asc", ["gamma", "Beta", "alpha"]),
    ("-latest", ["alpha", "Beta", "gamma"]),
])
def test_projects_list_sorts_by_each_column(api, catalogue, sort, expected):
    page = get(api, "/projects/", params={"sort": sort})
    assert page.status_code == 200
    assert names_in(page.text) == expected
    assert page.text.count("aria-sort=") == 1


def test_sort_links_keep_the_filters(api, catalogue):
    page = get(api, "/projects/", params={"q": "a", "backend": "PyPI"})
    assert names_in(page.text) == ["alpha"]
    links = re.findall(r'<th scope="col"[^>]*><a href="([^"]+)"', page.text)
    assert links and all("q=a" in link and "backend=PyPI" in link for link in links)


@pytest.mark.parametrize("params, expected", [
    ({"q": "python-alp"}, ["alpha"]),          # a mapped package name
    ({"q": "zeta.example"}, ["Beta"]),         # the homepage
    ({"q": "github"}, ["Beta"]),               # the backend
    ({"q": "GAMMA"}, ["gamma"]),               # the name, ignoring case
    ({"backend": "custom"}, ["gamma"]),
    ({"backend": "pypi"}, ["alpha"]),          # backend names ignore case
    ({"ecosystem": "PyPI"}, ["alpha"]),
    ({"status": "never"}, ["gamma"]),
])
def test_projects_list_filters(api, catalogue, params, expected):
    page = get(api, "/projects/", params=params)
    assert page.status_code == 200
    assert names_in(page.text) == expected


@pytest.mark.parametrize("params, field", [
    ({"backend": "nosuch"}, "backend"),
    ({"status": "sleeping"}, "status"),
    ({"sort": "colour"}, "sort"),
    ({"q": "x" * 201}, "q"),
])
def test_bad_filter_values_are_a_400_page_naming_the_field(api, catalogue, params, field):
    page = get(api, "/projects/", params=params)
    assert page.status_code == 400
    assert page.headers["Content-Type"].startswith("text/html")
    assert f'id="{field}-error"' in page.text
    assert '<form method="get" action="/projects/"' in page.text
    assert names_in(page.text) == []


def test_paging_links_keep_the_filters(api):
    for index in range(55):
        add_project(api, name=f"lib{index:02}", homepage=f"https://lib{index}.example/")
    first = get(api, "/projects/", params={"q": "lib", "sort": "-name"})
    assert len(names_in(first.text)) == 50 and names_in(first.text)[0] == "lib54"
    next_link = re.search(r'<a href="([^"]+)" rel="next">', first.text).group(1).replace("&amp;", "&")
    assert "q=lib" in next_link and "sort=-name" in next_link and "page=2" in next_link
    second = get(api, next_link)
    assert names_in(second.text) == [f"lib{index:02}" for index in range(4, -1, -1)]


def test_status_filter_links_are_on_the_projects_page(api):
    text = get(api, "/projects/").text
    for status in ("updated", "failed", "never", "archived"):
        assert f'href="/projects/?status={status}"' in text


# ---------------------------------------------------------------- search

def test_search_matches_names_and_package_names_anywhere(api, catalogue):
    page = get(api, "/projects/search/", params={"pattern": "a"})
    assert page.status_code == 200
    assert names_in(page.text) == ["alpha", "Beta", "gamma"]
    by_package = get(api, "/projects/search/", params={"pattern": "tools"})
    assert names_in(by_package.text) == ["gamma"]


def test_search_wildcard_and_exact(api, catalogue):
    assert names_in(get(api, "/projects/search/", params={"pattern": "g*a", "exact": "1"}).text) == ["gamma"]
    assert names_in(get(api, "/projects/search/", params={"pattern": "amm", "exact": "1"}).text) == []
    assert names_in(get(api, "/projects/search/amm").text) == ["gamma"]


def test_search_with_one_exact_hit_opens_the_project(api, catalogue):
    page = get(api, "/projects/search/", params={"pattern": "  beta "})
    assert page.status_code == 302
    assert page.headers["Location"].endswith(f"/project/{catalogue['Beta']}/")


def test_search_without_hits_offers_to_add_the_project(api, catalogue):
    page = get(api, "/projects/search/nothing-like-it")
    assert page.status_code == 200
    assert 'href="/project/new?name=nothing-like-it"' in page.text


def test_project_by_name_or_package(api, catalogue):
    by_name = get(api, "/project/alpha/")
    assert by_name.status_code == 200 and "<h1>alpha" in by_name.text
    by_package = get(api, "/project/gamma-tools")
    assert by_package.status_code == 200 and "<h1>gamma" in by_package.text
    assert get(api, "/project/unheard-of/").status_code == 404


# ---------------------------------------------------------------- updates

def test_updates_pages(api, catalogue):
    with api.runtime.db.connection_context():
        Project.update(check_successful=False, error_counter=3, logs="upstream said 500",
                       last_check=datetime(2026, 1, 2)).where(Project.id == catalogue["Beta"]).execute()
        Project.update(check_successful=True, last_check=datetime(2026, 1, 3)).where(
            Project.id == catalogue["alpha"]).execute()
    assert names_in(get(api, "/projects/updates/").text) == ["alpha"]
    failed = get(api, "/projects/updates/failed")
    assert names_in(failed.text) == ["Beta"] and "upstream said 500" in failed.text
    assert names_in(get(api, "/projects/updates/failed", params={"log": "said"}).text) == ["Beta"]
    assert names_in(get(api, "/projects/updates/failed", params={"log": "nothing"}).text) == []
    assert names_in(get(api, "/projects/updates/never_updated/").text) == ["gamma"]


def test_an_unknown_update_status_is_a_400_naming_the_valid_ones(api, catalogue):
    page = get(api, "/projects/updates/sleeping")
    assert page.status_code == 400
    text = text_of(page.text)
    assert "'sleeping' is not a status" in text
    for status in ("updated", "failed", "never_updated", "archived"):
        assert status in text
    assert names_in(page.text) == []


# ---------------------------------------------------------------- the project page

def test_project_page_shows_the_project(api, catalogue):
    page = get(api, f"/project/{catalogue['alpha']}/")
    assert page.status_code == 200
    text = text_of(page.text)
    assert "Latest version 2.0" in text
    assert "https://alpha.example/" in text and "PyPI" in text and "pypi" in text
    # newest first, each with the date it was found
    assert text.index("2.0 2024-01-02") < text.index("1.0 2024-01-01")
    # the package links to the distribution's page
    assert 'href="https://src.fedoraproject.org/rpms/python-alpha"' in page.text
    assert "Project added." in text
    assert '<svg role="img" aria-labelledby="timeline-title"' in page.text
    assert "style=" not in page.text


def test_project_page_marks_pre_releases_and_hides_filtered_versions_from_all_but_admins(api, people):
    pid = add_project(api, name="delta", homepage="https://delta.example/",
                      versions=["1.0", "2.0rc1", "1.1-beta-skip"], version_filter="skip")
    anonymous = text_of(get(api, f"/project/{pid}/").text)
    assert "2.0rc1" in anonymous and "pre-release" in anonymous
    assert "1.1-beta-skip" not in anonymous and "Raw version" not in anonymous
    admin = get(api, f"/project/{pid}/", people["admin"])
    assert "1.1-beta-skip" in admin.text and "filtered out" in admin.text and "Raw version" in admin.text


def test_unknown_project_is_a_404_page(api):
    page = get(api, "/project/999999/")
    assert page.status_code == 404 and page.headers["Content-Type"].startswith("text/html")


def test_project_page_actions_by_visitor(api, catalogue, people):
    pid = catalogue["alpha"]
    anonymous = get(api, f"/project/{pid}/").text
    assert f'href="/project/{pid}/edit"' in anonymous and f'href="/project/{pid}/flag"' in anonymous
    assert f'action="/project/{pid}/check"' not in anonymous
    assert f'href="/project/{pid}/delete"' not in anonymous and "archive/set" not in anonymous
    user = get(api, f"/project/{pid}/", people["user"]).text
    assert f'action="/project/{pid}/check"' in user and f'href="/project/{pid}/delete"' not in user
    admin = get(api, f"/project/{pid}/", people["admin"]).text
    for path in (f'href="/project/{pid}/delete"', f'action="/project/{pid}/archive/set/true"',
                 f'href="/project/{pid}/delete/Fedora/python-alpha"', f'href="/project/{pid}/delete/2.0"',
                 f'href="/project/{pid}/delete/versions"'):
        assert path in admin


def test_archived_project_says_how_to_ask_for_unarchiving(api, catalogue, people):
    pid = catalogue["gamma"]
    with api.runtime.db.connection_context():
        Project.update(archived=True).where(Project.id == pid).execute()
    page = get(api, f"/project/{pid}/", people["user"]).text
    assert "archived" in text_of(page) and f'href="/project/{pid}/flag"' in page
    assert f'href="/project/{pid}/edit"' not in page and f'href="/project/{pid}/map"' not in page
    assert f'action="/project/{pid}/check"' not in page
    admin = get(api, f"/project/{pid}/", people["admin"]).text
    assert f'href="/project/{pid}/edit"' in admin and f'action="/project/{pid}/archive/set/false"' in admin


def test_open_flags_are_counted_for_all_and_explained_to_admins(api, catalogue, people):
    pid = catalogue["alpha"]
    with api.runtime.db.connection_context():
        ProjectFlag.create(project=pid, reason="wrong homepage", user="alice@example.org")
    anonymous = text_of(get(api, f"/project/{pid}/").text)
    assert "1 open flag" in anonymous and "wrong homepage" not in anonymous
    assert "wrong homepage" in text_of(get(api, f"/project/{pid}/", people["admin"]).text)


def test_names_are_shown_as_text(api):
    pid = add_project(api, name="<script>alert(1)</script>", homepage="https://evil.example/")
    for path in (f"/project/{pid}/", "/projects/", "/", "/changes/"):
        page = get(api, path)
        assert "<script>alert(1)</script>" not in page.text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text


def test_links_to_other_sites_are_http_only(api):
    pid = add_project(api, name="sly", homepage="javascript:alert(1)", version_url="javascript:alert(2)")
    for path in (f"/project/{pid}/", "/projects/"):
        page = get(api, path).text
        assert 'href="javascript:' not in page and "javascript:alert(1)" in page


def test_history_shows_a_mapping_made_through_the_api(api, catalogue):
    pid = catalogue["alpha"]
    answer = api.post("/api/v2/packages/", json={"project_name": "alpha", "project_ecosystem": "pypi",
                                                 "distribution": "Debian", "package_name": "alpha-pkg"})
    assert answer.status_code == 201, answer.text
    text = text_of(get(api, f"/project/{pid}/").text)
    assert "Mapped to the package alpha-pkg of Debian." in text and "tester" in text
    assert "Mapped to the package alpha-pkg of Debian." in text_of(get(api, "/changes/").text)


def test_history_says_what_an_edit_changed(api, catalogue):
    from anitrack_core.db.projects import update_project

    pid = catalogue["gamma"]
    with api.runtime.db.connection_context():
        update_project(api.runtime.plugins, Project.get_by_id(pid), agent="alice",
                       homepage="https://gamma.example.org/", version_filter="rc")
    text = text_of(get(api, f"/project/{pid}/").text)
    assert ("alice Edited: ecosystem changed from https://gamma.example/ to https://gamma.example.org/; "
            "homepage changed from https://gamma.example/ to https://gamma.example.org/; "
            "version filter changed from nothing to rc." in text)


# ---------------------------------------------------------------- distributions

def test_distros_list_and_a_distros_projects(api, catalogue, people):
    page = get(api, "/distros/")
    assert page.status_code == 200
    assert re.search(r'href="/distro/Debian/">Debian</a></td>\s*<td>1</td>', page.text)
    assert "/distro/Debian/delete" not in page.text
    assert "/distro/Debian/delete" in get(api, "/distros/", people["admin"]).text
    fedora = get(api, "/distro/fedora/")
    assert fedora.status_code == 200 and names_in(fedora.text) == ["alpha"]
    assert get(api, "/distro/Nowhere/").status_code == 404


def test_search_in_a_distro(api, catalogue):
    assert names_in(get(api, "/distro/Debian/search/", params={"pattern": "a"}).text) == ["gamma"]
    hit = get(api, "/distro/Fedora/search/alpha")
    assert hit.status_code == 302 and hit.headers["Location"].endswith(f"/project/{catalogue['alpha']}/")
    assert get(api, "/distro/Nowhere/search/x").status_code == 404


# ---------------------------------------------------------------- logs, changes, home, nav

def test_logs_and_failures(api, catalogue):
    with api.runtime.db.connection_context():
        Project.update(check_successful=False, error_counter=2, logs="timed out",
                       last_check=datetime(2026, 1, 2)).where(Project.id == catalogue["Beta"]).execute()
        Project.update(check_successful=True, logs="ok: 2 versions",
                       last_check=datetime(2026, 1, 3)).where(Project.id == catalogue["alpha"]).execute()
    logs = get(api, "/logs")
    assert logs.status_code == 200 and names_in(logs.text) == ["alpha", "Beta"] and "timed out" in logs.text
    assert names_in(get(api, "/failures/").text) == ["Beta"]


def test_home_page(api, catalogue):
    with api.runtime.db.connection_context():
        Run.create(created_on=datetime(2026, 3, 4, 5, 6), total_count=3, success_count=2, error_count=1,
                   ratelimit_count=0)
    text = text_of(get(api, "/").text).replace(" :", ":")
    assert "Last check ended at 2026-03-04 05:06 UTC: 3 in total, 2 OK, 1 errors, 0 rate-limited" in text
    assert "3 projects" in text or "3 upstream projects" in text
    assert "gamma: Project added." in text


def test_about_leads_to_the_docs(api):
    page = get(api, "/about")
    assert page.status_code == 302 and page.headers["Location"].endswith("/static/docs/api.html")


def test_nav_links_lead_to_pages_that_exist(api, people):
    for client in (requests, people["user"]):
        home = get(api, "/", client).text
        nav = re.search(r'<ul class="nav-links">(.*?)</ul>', home, re.S).group(1)
        for path in re.findall(r'href="([^"]+)"', nav):
            if path == "/project/new":
                continue  # the actions' page
            assert get(api, path, client).status_code == 200, path


# ---------------------------------------------------------------- web.package_links

@pytest.fixture
def gentoo_links(anitrack_env, monkeypatch):
    monkeypatch.setenv("ANITRACK_WEB_PACKAGE_LINKS", "gentoo=https://packages.gentoo.org/packages/{package}")


def test_package_links_come_from_the_setting(gentoo_links, api):
    with api.runtime.db.connection_context():
        from anitrack_core.db.distros import add_distro

        add_distro("Gentoo")
    pid = add_project(api, name="eps", homepage="https://eps.example/",
                      packages_=[("Gentoo", "dev-libs/eps"), ("Fedora", "eps")])
    page = get(api, f"/project/{pid}/").text
    assert 'href="https://packages.gentoo.org/packages/dev-libs/eps"' in page
    assert "src.fedoraproject.org" not in page  # the setting replaces the defaults


@pytest.mark.parametrize("value", ["Fedora", "Fedora=https://example.org/", "Fedora=ftp://x/{package}"])
def test_a_bad_package_link_is_refused_at_start_up(value):
    from anitrack_core.config import core_settings, load_settings
    from anitrack_core.errors import ConfigError

    with pytest.raises(ConfigError, match="web.package_links"):
        load_settings(core_settings(), {"ANITRACK_WEB_PACKAGE_LINKS": value}, file_values={})
