"""The read pages cost the same number of queries whatever their size (no query per row)."""

import pytest

from anitrack_core.db.models import ProjectFlag

from .helpers import add_project
from .test_query_counts import count_queries  # noqa: F401 (a fixture)


def seed(api, first, count, *, versions=("1.0", "1.1", "2.0rc1")):
    return [add_project(api, name=f"p{index:03}", homepage=f"https://p{index}.example/", versions=versions,
                        packages_=[("Fedora", f"p{index}"), ("Debian", f"p{index}")])
            for index in range(first, first + count)]


@pytest.mark.parametrize("path", ["/projects/", "/projects/?sort=-latest&q=p0", "/projects/search/?pattern=p",
                                  "/distro/Fedora/", "/distros/", "/logs", "/changes/", "/"])
def test_list_pages_cost_the_same_with_3_or_30_items(api, count_queries, path):  # noqa: F811
    seed(api, 0, 3)
    small = count_queries(api, path)
    seed(api, 3, 27)
    large = count_queries(api, path)
    assert large == small, f"{path}: {small} queries with 3 items, {large} with 30"
    assert small <= 6, f"{path} runs {small} queries"


def test_the_project_page_costs_the_same_with_3_or_30_of_everything(api, count_queries):  # noqa: F811
    def project(name, count):
        pid = add_project(api, name=name, homepage=f"https://{name}.example/",
                          versions=[f"1.{index}" for index in range(count)],
                          packages_=[("Fedora", f"{name}-{index}") for index in range(count)])
        with api.runtime.db.connection_context():
            for index in range(count):
                ProjectFlag.create(project=pid, reason=f"reason {index}", user="someone@example.org")
        return pid

    small = count_queries(api, f"/project/{project('small', 3)}/")
    large = count_queries(api, f"/project/{project('large', 30)}/")
    assert large == small, f"the project page runs {small} queries for 3 items, {large} for 30"
    assert small <= 6
