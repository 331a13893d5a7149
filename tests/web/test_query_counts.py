"""A list page costs a bounded number of queries, whatever its size (no N+1)."""

import logging

import pytest

from .helpers import add_project


class QueryCounter(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record):
        self.count += 1


@pytest.fixture
def count_queries():
    logger = logging.getLogger("peewee")
    handler, level = QueryCounter(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)

    def measure(api, path, params=None):
        handler.count = 0
        assert api.get(path, params=params).status_code == 200
        return handler.count

    yield measure
    logger.removeHandler(handler)
    logger.setLevel(level)


def seed(api, count):
    for index in range(count):
        add_project(api, name=f"p{index:03}", homepage=f"https://p{index}.example/", versions=["1.0", "1.1", "2.0rc1"],
                    packages_=[("Fedora", f"p{index}"), ("Debian", f"p{index}")])


@pytest.mark.parametrize("path, params", [
    ("/api/v2/projects/", {}),
    ("/api/v2/packages/", {}),
    ("/api/v2/versions/", {"project_id": 1}),
])
def test_queries_do_not_grow_with_the_page(api, count_queries, path, params):
    seed(api, 3)
    small = count_queries(api, path, {**params, "items_per_page": 2} if "project_id" not in params else params)
    seed_more = 40
    for index in range(seed_more):
        add_project(api, name=f"q{index:03}", homepage=f"https://q{index}.example/", versions=["1.0", "3.0"],
                    packages_=[("Fedora", f"q{index}")])
    large = count_queries(api, path, {**params, "items_per_page": 250} if "project_id" not in params else params)
    assert large == small, f"{path}: {small} queries for a small page, {large} for a large one"
    assert 1 <= large <= 4, f"{path} runs {large} queries"
