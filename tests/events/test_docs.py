"""docs/events.md keeps up with the code: every topic documented, every example body valid."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

from anitrack_core.events import TOPICS
from anitrack_core.events.publisher import wire_headers

from .conftest import validated

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"
TOPIC_LINE = re.compile(r"^(?:### )?`([a-z0-9.]+)`")


def examples() -> list[tuple[str, dict]]:
    """(topic, body) of every JSON example: the blocks after a heading or paragraph that starts with a
    topic belong to the topics it names, the first block to the first topic, and so on."""
    found, topics, position, block = [], [], 0, None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if block is not None:
            if line.startswith("```"):
                found.append((topics[position], json.loads("\n".join(block))))
                position, block = position + 1, None
            else:
                block.append(line)
        elif line.startswith("```json"):
            block = []
        elif (match := TOPIC_LINE.match(line)) and match.group(1) in TOPICS:
            named = [name for name in re.findall(r"`([a-z0-9.]+)`", line) if name in TOPICS]
            if named:
                topics, position = named, 0
    return found


def test_every_topic_has_a_valid_example():
    found = examples()
    assert {topic for topic, _ in found} == set(TOPICS)
    for topic, body in found:
        validated(topic, body)


def test_the_documented_headers_are_those_sent():
    text = DOC.read_text(encoding="utf-8")
    body = dict(examples())["project.map.new"]
    for header in wire_headers("project.map.new", body, datetime(2026, 1, 1)):
        name = "fedora_messaging_rpm_" if header.startswith("fedora_messaging_rpm_") else header
        assert f"header `{name}" in text or f"headers `{name}" in text, header


def test_settings_and_the_drop_in_prefix_are_documented():
    text = DOC.read_text(encoding="utf-8")
    for variable in ("ANITRACK_BROKER_URL", "ANITRACK_TOPIC_PREFIX", "ANITRACK_EVENTS_EXCHANGE"):
        assert variable in text
    assert "ANITRACK_TOPIC_PREFIX=org.release-monitoring.prod.anitya" in text
    assert "anitrack events status" in text and "anitrack events publish" in text and "GET /metrics" in text
