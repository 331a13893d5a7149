"""The API's own description: the OpenAPI document and the HTML page made from it.

``openapi.json`` (next to this module) is the one source of truth.  A running
server serves it at ``/api/v2/openapi.json`` with three things filled in that
only the server knows: ``servers`` (its ``base_url``), and, in the schemas
marked ``x-anitrack-names``, the names of the backends and version schemes its
plugins registered.  The HTML page at ``/static/docs/api.html`` (where Anitya
has it, and where ``GET /api`` points) is rendered from that same document:
escaped text, inline CSS, no script, nothing loaded from elsewhere.
"""

from __future__ import annotations

import copy
import html
import json
import re
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any

from bottle import Bottle, HTTPResponse, request, response

from .context import WebContext
from .pages.rendering import html_headers

DOCS_PAGE = "/static/docs/api.html"
OPENAPI_PATH = "/api/v2/openapi.json"
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# The characters str.strip() removes (also spelled out in openapi.json's patterns).
_WS = r"\u0009-\u000d\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_REGEX_SYNTAX = set("\\^$.|?*+()[]{}/")


def load_document() -> dict[str, Any]:
    """The packaged document, as written (a fresh copy)."""
    return json.loads(resources.files(__package__).joinpath("openapi.json").read_text(encoding="utf-8"))


def _name_regex(name: str) -> str:
    """*name* as a regular expression that ignores letter case (portable: no inline flags)."""
    parts = []
    for char in name:
        variants = sorted({variant for variant in (char, char.lower(), char.upper()) if len(variant) == 1})
        if len(variants) > 1:
            parts.append("[" + "".join(variants) + "]")
        else:
            parts.append("\\" + char if char in _REGEX_SYNTAX else char)
    return "".join(parts)


def names_pattern(names: list[str], *, required: bool) -> str:
    """A pattern matching one of *names*, in any letter case, with surrounding whitespace."""
    alternatives = "|".join(_name_regex(name) for name in names)
    return rf"^[{_WS}]*(?:{alternatives}){'' if required else '?'}[{_WS}]*$"


def _fill_names(schema: dict[str, Any], names: list[str], *, required: bool) -> None:
    if names:
        schema.pop("not", None)
        schema["pattern"] = names_pattern(names, required=required)
        schema["examples"] = list(names)
        schema["description"] = f"{schema.get('description', '')} On this server: {', '.join(names)}.".strip()
    else:  # nothing registered: nothing matches
        for key in ("type", "pattern", "maxLength", "examples"):
            schema.pop(key, None)
        schema["not"] = {}
        schema["description"] = f"{schema.get('description', '')} On this server: none.".strip()


def _marked(node: Any) -> Iterator[dict[str, Any]]:
    """Every object of *node* that carries ``x-anitrack-names``."""
    if isinstance(node, dict):
        if "x-anitrack-names" in node:
            yield node
        for value in node.values():
            yield from _marked(value)
    elif isinstance(node, list):
        for value in node:
            yield from _marked(value)


def served_document(ctx: WebContext) -> dict[str, Any]:
    """The document as this server serves it: its base URL and its plugins' names filled in."""
    document = copy.deepcopy(load_document())
    document["servers"] = [{"url": ctx.runtime.settings.base_url.rstrip("/") or "/",
                            "description": "this server"}]
    backends = ctx.plugins.backends
    lists = {
        "backends": (backends.names(), True),
        "backends-requiring-version-url": (
            [cls.name for cls in backends if getattr(cls, "required_version_url", False)], True),
        "schemes": (ctx.plugins.schemes.names(), False),
    }
    for schema in _marked(document):
        names, required = lists[schema["x-anitrack-names"]]
        _fill_names(schema, names, required=required)
    return document


# --- the HTML page ------------------------------------------------------------------------------------

_CSS = """
body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:0 auto;padding:1rem 2rem;color:#1d1d1f}
h1,h2,h3{line-height:1.2}h2{border-bottom:2px solid #ddd;padding-bottom:.2rem;margin-top:2.5rem}
h3{margin-top:2rem}.op{border-left:4px solid #8aa;padding:0 0 0 1rem;margin:1.5rem 0}
.method{display:inline-block;min-width:3.5rem;font-weight:700;color:#fff;background:#357;border-radius:3px;
padding:0 .4rem;text-align:center}.post{background:#373}.deprecated{color:#a40;font-weight:600}
code{background:#f3f3f3;padding:0 .2rem;border-radius:3px;font-size:90%}
table{border-collapse:collapse;margin:.5rem 0;width:100%}th,td{border:1px solid #ddd;padding:.25rem .5rem;
text-align:left;vertical-align:top}th{background:#f6f6f6}details code{word-break:break-all}
nav ul{columns:2}pre{background:#f6f6f6;padding:.5rem;overflow-x:auto}
"""

_INLINE_CODE = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*([^*]+)\*\*")


def _text(value: Any) -> str:
    """Escaped text, with ``code`` and **strong** spans of the document's Markdown kept."""
    escaped = html.escape(str(value))
    escaped = _INLINE_CODE.sub(r"<code>\1</code>", escaped)
    return _STRONG.sub(r"<strong>\1</strong>", escaped)


def _paragraphs(value: str) -> str:
    return "".join(f"<p>{_text(part)}</p>" for part in value.split("\n\n") if part.strip())


def _anchor(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", "-".join(parts)).strip("-")


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


class _Renderer:
    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.components = document.get("components", {})

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while isinstance(node, dict) and "$ref" in node:
            kind, name = node["$ref"].split("/")[-2:]
            node = {**self.components[kind][name], **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def type_of(self, schema: Any) -> str:
        """A short, escaped HTML description of *schema*'s type."""
        if not isinstance(schema, dict):
            return "any"
        if "$ref" in schema:
            name = _ref_name(schema["$ref"])
            return f'<a href="#{_anchor("schema", name)}">{html.escape(name)}</a>'
        if "const" in schema:
            return f"<code>{html.escape(json.dumps(schema['const']))}</code>"
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return " or ".join(self.type_of(option) for option in schema[key])
        if schema.get("not") == {}:
            return "nothing"
        kinds = schema.get("type", "any")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        shown = []
        for kind in kinds:
            if kind == "array":
                shown.append("list of " + self.type_of(schema.get("items")))
            else:
                shown.append(html.escape(str(kind)))
        return " or ".join(shown)

    @staticmethod
    def constraints(schema: dict[str, Any]) -> str:
        notes = []
        for key, label in (("minimum", "≥"), ("maximum", "≤"), ("minLength", "length ≥"),
                           ("maxLength", "length ≤"), ("default", "default")):
            if key in schema:
                notes.append(f"{label} <code>{html.escape(json.dumps(schema[key]))}</code>")
        if "enum" in schema:
            notes.append("one of " + ", ".join(f"<code>{html.escape(json.dumps(value, ensure_ascii=False))}</code>"
                                               for value in schema["enum"]))
        text = ", ".join(notes)
        if "pattern" in schema:
            text += (f"<details><summary>pattern</summary><code>{html.escape(schema['pattern'])}</code>"
                     "</details>")
        return text

    def properties_table(self, schema: dict[str, Any]) -> str:
        schema = self.resolve(schema)
        properties = schema.get("properties")
        if not properties:
            return ""
        required = set(schema.get("required", ()))
        rows = []
        for name, prop in properties.items():
            resolved = self.resolve(prop) if "$ref" in prop else prop
            rows.append(f"<tr><td><code>{html.escape(name)}</code></td><td>{self.type_of(prop)}</td>"
                        f"<td>{'yes' if name in required else 'no'}</td>"
                        f"<td>{_text(prop.get('description', resolved.get('description', '')))}</td>"
                        f"<td>{self.constraints(resolved)}</td></tr>")
        extra = ("Other fields are refused." if schema.get("additionalProperties") is False else "")
        return ("<table><tr><th>field</th><th>type</th><th>required</th><th>meaning</th><th>limits</th></tr>"
                + "".join(rows) + f"</table><p>{extra}</p>")

    def parameters(self, operation: dict[str, Any]) -> str:
        params = [self.resolve(param) for param in operation.get("parameters", ())]
        if not params:
            return ""
        rows = "".join(
            f"<tr><td><code>{html.escape(p['name'])}</code></td><td>{html.escape(p['in'])}</td>"
            f"<td>{self.type_of(p.get('schema'))}</td><td>{'yes' if p.get('required') else 'no'}</td>"
            f"<td>{_text(p.get('description', ''))}</td><td>{self.constraints(p.get('schema', {}))}</td></tr>"
            for p in params)
        return ("<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th>required</th>"
                f"<th>meaning</th><th>limits</th></tr>{rows}</table>")

    def request_body(self, operation: dict[str, Any]) -> str:
        body = operation.get("requestBody")
        if not body:
            return ""
        parts = ["<h4>Request body</h4>"]
        for media, content in body.get("content", {}).items():
            parts.append(f"<p><code>{html.escape(media)}</code>: {self.type_of(content.get('schema'))}</p>")
        return "".join(parts)

    def responses(self, operation: dict[str, Any]) -> str:
        rows = []
        for status, answer in operation.get("responses", {}).items():
            answer = self.resolve(answer)
            kinds = ", ".join(f"<code>{html.escape(media)}</code> {self.type_of(content.get('schema'))}"
                              for media, content in answer.get("content", {}).items())
            headers = ", ".join(f"<code>{html.escape(name)}</code>" for name in answer.get("headers", {}))
            rows.append(f"<tr><td>{html.escape(status)}</td><td>{_text(answer.get('description', ''))}</td>"
                        f"<td>{kinds}</td><td>{headers}</td></tr>")
        return ("<h4>Responses</h4><table><tr><th>status</th><th>meaning</th><th>body</th><th>headers</th></tr>"
                + "".join(rows) + "</table>")

    def security(self, operation: dict[str, Any]) -> str:
        options = operation.get("security")
        if not options:
            return "<p>No token needed.</p>"
        schemes = self.components.get("securitySchemes", {})
        shown = []
        for option in options:
            for name in option:
                scheme = schemes.get(name, {})
                shown.append(f"{html.escape(scheme.get('in', ''))} <code>{html.escape(scheme.get('name', name))}"
                             "</code>")
        return "<p>Token needed, in " + " or ".join(shown) + ".</p>"

    def operations(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        for path, item in self.document.get("paths", {}).items():
            for method in HTTP_METHODS:
                if method in item:
                    yield path, method, item[method]

    def operation(self, path: str, method: str, operation: dict[str, Any]) -> str:
        deprecated = ' <span class="deprecated">deprecated</span>' if operation.get("deprecated") else ""
        return (f'<section class="op" id="{_anchor(method, path)}"><h3><span class="method {method}">'
                f"{method.upper()}</span> <code>{html.escape(path)}</code>{deprecated}</h3>"
                f"<p><strong>{_text(operation.get('summary', ''))}</strong></p>"
                f"{_paragraphs(operation.get('description', ''))}{self.security(operation)}"
                f"{self.parameters(operation)}{self.request_body(operation)}{self.responses(operation)}</section>")

    def page(self) -> str:
        info = self.document.get("info", {})
        title = html.escape(info.get("title", "API"))
        servers = ", ".join(f"<code>{html.escape(server.get('url', ''))}</code>"
                            for server in self.document.get("servers", ()))
        by_tag: dict[str, list[str]] = {}
        toc: dict[str, list[str]] = {}
        for path, method, operation in self.operations():
            tag = (operation.get("tags") or ["Other"])[0]
            by_tag.setdefault(tag, []).append(self.operation(path, method, operation))
            toc.setdefault(tag, []).append(
                f'<li><a href="#{_anchor(method, path)}">{method.upper()} <code>{html.escape(path)}</code></a> '
                f"{_text(operation.get('summary', ''))}</li>")
        tag_text = {tag.get("name"): tag.get("description", "") for tag in self.document.get("tags", ())}
        order = list(tag_text) + [tag for tag in by_tag if tag not in tag_text]
        by_tag = {tag: by_tag[tag] for tag in order if tag in by_tag}
        toc = {tag: toc[tag] for tag in order if tag in toc}
        sections = "".join(
            f'<h2 id="{_anchor("tag", tag)}">{html.escape(tag)}</h2>{_paragraphs(tag_text.get(tag, ""))}'
            + "".join(ops) for tag, ops in by_tag.items())
        nav = "".join(f"<h4>{html.escape(tag)}</h4><ul>{''.join(items)}</ul>" for tag, items in toc.items())
        schemas = "".join(
            f'<h3 id="{_anchor("schema", name)}">{html.escape(name)}</h3>'
            f"{_paragraphs(schema.get('description', ''))}<p>Type: {self.type_of(schema)} "
            f"{self.constraints(schema)}</p>{self.properties_table(schema)}"
            for name, schema in self.components.get("schemas", {}).items())
        return (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{title}</title><style>{_CSS}</style></head><body>"
            f"<h1>{title} <small>{html.escape(info.get('version', ''))}</small></h1>"
            f"{_paragraphs(info.get('description', ''))}"
            f"<p>Base URL: {servers}. The machine-readable description of this API: "
            f'<a href="{html.escape("../.." + OPENAPI_PATH, quote=True)}">'
            f"<code>{html.escape(OPENAPI_PATH)}</code></a> (OpenAPI {html.escape(self.document.get('openapi', ''))})."
            f"</p><nav><h2>Operations</h2>{nav}</nav>{sections}<h2>Schemas</h2>{schemas}</body></html>"
        )


def render_html(document: dict[str, Any]) -> str:
    """The documentation page for *document*."""
    return _Renderer(document).page()


def _once(build: Callable[[], str]) -> Callable[[], str]:
    """*build*, called on first use only (plugins and settings are fixed once the app serves)."""
    cache: list[str] = []

    def get() -> str:
        if not cache:
            cache.append(build())
        return cache[0]

    return get


def add_routes(app: Bottle, ctx: WebContext) -> None:
    """Add the documentation routes to *app*."""
    document_json = _once(lambda: json.dumps(served_document(ctx), indent=2, ensure_ascii=False))
    page = _once(lambda: render_html(json.loads(document_json())))

    @app.get(OPENAPI_PATH)
    def openapi_document() -> str:
        response.content_type = "application/json"
        return document_json()

    @app.get(["/api", "/api/"])
    def api_root() -> HTTPResponse:
        # a path, as Anitya answers; script_name keeps it right when mounted below a prefix
        return HTTPResponse(status=302, Location=request.script_name + DOCS_PAGE.lstrip("/"))

    @app.get(DOCS_PAGE)
    def docs_page() -> str:
        html_headers(private=False)
        # the page is self-contained: its own inline CSS, and no script at all
        response.set_header("Content-Security-Policy",
                            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
        return page()
