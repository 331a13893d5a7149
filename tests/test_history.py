"""A project's history is written with every event about it, in the same transaction."""

from __future__ import annotations

import anitrack_backend_custom
import pytest

from anitrack_core.db import history
from anitrack_core.db.models import ProjectChange
from anitrack_core.db.projects import create_project, delete_project, update_project


@pytest.fixture
def plugins(anitrack_plugins, register_plugin):
    assert register_plugin(anitrack_backend_custom, "custom").status == "loaded"
    return anitrack_plugins


def test_each_change_of_a_project_is_in_its_history_newest_first(anitrack_db, plugins):
    project = create_project(plugins, agent="alice", name="geany", homepage="https://www.geany.org/",
                             backend="custom", version_url="https://www.geany.org/download/releases")
    update_project(plugins, project, agent="bob", homepage="https://geany.org/")
    update_project(plugins, project, agent="bob", homepage="https://geany.org/")  # no change: no entry
    changes = history.project_history(project.id)
    assert [(c.topic, c.agent) for c in changes] == [("project.edit", "bob"), ("project.add", "alice")]
    assert changes[0].details["changes"]["homepage"] == {"old": "https://www.geany.org/",
                                                         "new": "https://geany.org/"}
    assert changes[0].project_name == "geany"


def test_the_history_of_a_deleted_project_is_kept(anitrack_db, plugins):
    project = create_project(plugins, agent="alice", name="gone", homepage="https://gone.example/",
                             backend="custom", version_url="https://gone.example/releases")
    delete_project(project, agent="root")
    assert [c.topic for c in history.project_history(project.id)] == ["project.remove", "project.add"]
    assert [c.project_name for c in history.recent_changes(topics=["project.remove"])] == ["gone"]


def test_a_change_rolled_back_leaves_no_history(anitrack_db, plugins):
    with pytest.raises(RuntimeError), anitrack_db.atomic():
        create_project(plugins, agent="alice", name="rolled", homepage="https://r.example/",
                       backend="custom", version_url="https://r.example/releases")
        raise RuntimeError("the caller gives up")
    assert ProjectChange.select().count() == 0
