"""Reading and validating request input: query strings and JSON or form bodies.

Every problem is collected per field and answered with one 400 whose body
names each offending field (``"message": {"field": "problem"}``), before
anything is read from or written to the store.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from bottle import HTTPError, request

from .errors import api_error

MAX_STRING = 4096
MAX_BODY_BYTES = 1024 * 1024
_INT_RE = re.compile(r"^\s*[+-]?\d+\s*$")
# the spellings Anitya's clients send: lower, UPPER and Capitalised words
_TRUE = {w for base in ("t", "true", "on", "y", "yes", "1") for w in (base, base.upper(), base.capitalize())}
_FALSE = {w for base in ("f", "false", "off", "n", "no", "0") for w in (base, base.upper(), base.capitalize())}
#: the largest id any database here stores (64-bit signed)
MAX_ID = 2**63 - 1


class Invalid(Exception):
    """Field problems found while reading a request."""

    def __init__(self, problems: dict[str, str]) -> None:
        super().__init__(problems)
        self.problems = problems


def invalid_response(problems: dict[str, str]) -> Any:
    summary = "; ".join(f"{field}: {problem}" for field, problem in problems.items())
    return api_error(400, summary, message=problems)


def _decode(value: str, field: str) -> str:
    """Bottle hands query and form values over as latin-1 decoded WSGI strings."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeEncodeError:
        return value
    except UnicodeDecodeError:
        raise Invalid({field: "Not valid UTF-8."}) from None


def _check_string(value: str, field: str) -> str:
    if len(value) > MAX_STRING:
        raise Invalid({field: f"Longer than {MAX_STRING} characters."})
    if "\x00" in value:
        raise Invalid({field: "Contains a NUL character."})
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a JSON \ud800 escape
        raise Invalid({field: "Not valid UTF-8 (lone surrogate)."}) from None
    return value


@dataclass(frozen=True)
class Field:
    """One accepted input field."""

    name: str
    kind: type = str  # str, int, bool, or list (of strings; comma-separated in a form or query)
    required: bool = False
    nullable: bool = True
    minimum: int | None = None
    maximum: int | None = None

    def convert(self, value: Any, *, from_text: bool) -> Any:
        if value is None:
            if not self.nullable:
                raise Invalid({self.name: "Field may not be null."})
            return None
        if self.kind is bool:
            return _to_bool(value, self.name, from_text)
        if self.kind is int:
            return self._to_int(value, from_text)
        if self.kind is list:
            return self._to_list(value, from_text)
        if not isinstance(value, str):
            raise Invalid({self.name: "Not a valid string."})
        return _check_string(value, self.name)

    def _to_list(self, value: Any, from_text: bool) -> list[str]:
        if from_text and isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if not isinstance(value, list) or not all(isinstance(v, (str, int)) and not isinstance(v, bool)
                                                  for v in value):
            raise Invalid({self.name: "Not a list of strings."})
        if len(value) > 1000:
            raise Invalid({self.name: "More than 1000 items."})
        return [_check_string(str(v), self.name) for v in value]

    def _to_int(self, value: Any, from_text: bool) -> int:
        if isinstance(value, bool):
            raise Invalid({self.name: "Not a valid integer."})
        if isinstance(value, int):
            number = value
        elif isinstance(value, str) and _INT_RE.match(value) and len(value) <= 30:
            number = int(value)
        else:
            raise Invalid({self.name: "Not a valid integer."})
        if self.minimum is not None and number < self.minimum:
            raise Invalid({self.name: f"Value must be greater than or equal to {self.minimum}."})
        if self.maximum is not None and number > self.maximum:
            raise Invalid({self.name: f"Value must be less than or equal to {self.maximum}."})
        return number


def _to_bool(value: Any, field: str, from_text: bool) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value in _TRUE | _FALSE:
        return value in _TRUE
    raise Invalid({field: "Not a valid boolean."})


def read_query(fields: list[Field]) -> dict[str, Any]:
    """The query-string values of *fields* (unknown parameters are ignored), converted."""
    values: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for field in fields:
        raw = request.query.get(field.name)
        if raw is None:
            if field.required:
                problems[field.name] = "Missing data for required field."
            continue
        try:
            values[field.name] = field.convert(_decode(raw, field.name), from_text=True)
        except Invalid as exc:
            problems.update(exc.problems)
    if problems:
        raise Invalid(problems)
    return values


def _body_is_json() -> bool:
    kind = (request.content_type or "").split(";")[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


def _raw_body() -> dict[str, Any]:
    length = request.content_length
    if length > MAX_BODY_BYTES:
        raise HTTPError(413, f"request body larger than {MAX_BODY_BYTES} bytes")
    if _body_is_json():
        data = request.body.read(MAX_BODY_BYTES + 1)
        if len(data) > MAX_BODY_BYTES:
            raise HTTPError(413, f"request body larger than {MAX_BODY_BYTES} bytes")
        if not data.strip():
            return {}
        try:
            parsed = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError:
            raise Invalid({"_schema": "Body is not valid UTF-8."}) from None
        except ValueError as exc:
            raise Invalid({"_schema": f"Invalid JSON: {exc}"}) from None
        except RecursionError:
            raise Invalid({"_schema": "Invalid JSON: nested too deeply."}) from None
        if not isinstance(parsed, dict):
            raise Invalid({"_schema": "Invalid input type: expected a JSON object."})
        return parsed
    form: dict[str, Any] = {}
    for key in request.forms.keys():
        values = request.forms.getall(key)
        name = _decode(key, "_schema")
        if len(values) > 1:
            raise Invalid({name: "Given more than once."})
        form[name] = values[0]
    return form


def read_body(fields: list[Field]) -> dict[str, Any]:
    """The body (JSON object or form) converted per *fields*; unknown fields are refused.

    Fields absent from the body are absent from the result.
    """
    raw = _raw_body()
    from_text = not _body_is_json()
    known = {field.name: field for field in fields}
    problems = {name: "Unknown field." for name in raw if name not in known}
    values: dict[str, Any] = {}
    for field in fields:
        if field.name not in raw:
            if field.required:
                problems[field.name] = "Missing data for required field."
            continue
        value = raw[field.name]
        try:
            if from_text and isinstance(value, str):
                value = _decode(value, field.name)
            values[field.name] = field.convert(value, from_text=from_text)
        except Invalid as exc:
            problems.update(exc.problems)
    if problems:
        raise Invalid(problems)
    return values


PAGING = [Field("page", int, minimum=1, maximum=10**9, nullable=False),
          Field("items_per_page", int, minimum=1, maximum=250, nullable=False)]
