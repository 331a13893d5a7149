"""Paging of list pages: ``?page=N`` (an invalid number means the first page), links that keep the filters."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from bottle import request


def page_number() -> int:
    """The ``page`` query parameter; 1 when absent or not a positive number (as the existing service does)."""
    raw = (request.query.get("page") or "").strip()
    return int(raw) if raw.isdigit() and 0 < len(raw) < 10 and int(raw) > 0 else 1


@dataclass(frozen=True)
class Pager:
    """Where a list page stands: its number, its size and the number of items in all."""

    page: int
    per_page: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def first_item(self) -> int:
        return 0 if self.total == 0 else (self.page - 1) * self.per_page + 1

    @property
    def last_item(self) -> int:
        return min(self.total, self.page * self.per_page)

    def url(self, page: int) -> str:
        """This page's URL for page *page*, every other query parameter kept."""
        params = [(key, request.query.getunicode(key) or "") for key in request.query.keys() if key != "page"]
        params.append(("page", str(page)))
        return f"{request.path}?{urlencode(params)}"
