"""The release timeline of a project page: labels never overlap, and say what they stand for."""

from datetime import datetime, timedelta

from anitrack_web.pages.project import VersionRow, timeline


def row(shown, found_on):
    return VersionRow(shown, shown, found_on, False, False, None)


def test_versions_found_at_once_share_one_label():
    moment = datetime(2026, 1, 1)
    drawn = timeline([row("1.38", moment), row("2.0", moment), row("2.1", moment)])
    assert [p["label"] for p in drawn["points"] if p["label"]] == ["2.1 (+2 more)"]


def test_labels_keep_their_distance_and_the_newest_is_labelled():
    start = datetime(2020, 1, 1)
    versions = [row(f"1.{n}", start + timedelta(days=30 * n)) for n in range(40)]
    points = timeline(versions)["points"]
    labelled = [p for p in points if p["label"]]
    assert labelled and len(labelled) <= 6 and points[-1]["label"].startswith("1.39")
    xs = sorted(p["x"] for p in labelled)
    assert all(b - a >= 56 for a, b in zip(xs, xs[1:]))
    counted = sum(int(p["label"].split("+")[1].split()[0]) if "+" in p["label"] else 0 for p in labelled)
    assert counted + len(labelled) == 40
