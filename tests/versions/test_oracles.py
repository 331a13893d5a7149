"""The one rule for missing oracles: skip locally, fail on CI."""

from __future__ import annotations

import pytest

from .oracles import oracle_unavailable, require_module


@pytest.mark.parametrize("value", ["", "0", "false"])
def test_skips_off_ci(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.skip.Exception, match="no oracle"):
        oracle_unavailable("no oracle")


@pytest.mark.parametrize("value", ["true", "1"])
def test_fails_on_ci(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match="no oracle"):
        oracle_unavailable("no oracle")


def test_missing_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="'no_such_oracle_module' is not installed"):
        require_module("no_such_oracle_module", "hint")
