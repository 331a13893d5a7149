"""The git backend on its own: pkt-lines, a fake smart-HTTP (and dumb) server, the CLI."""

import json

import pytest

import anitrack_backend_git as git
from anitrack_core.check.http import NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "git"
PATH = "/owner/repo.git/info/refs?service=git-upload-pack"
SMART = {"Content-Type": "application/x-git-upload-pack-advertisement", "Cache-Control": "no-cache"}
A, B, C = "a" * 40, "b" * 40, "c" * 40


def pkt(text):
    data = text.encode() if isinstance(text, str) else text
    return b"%04x" % (len(data) + 4) + data


def advertisement(*refs, capabilities="multi_ack thin-pack side-band ofs-delta agent=git/2.45.0"):
    lines = [pkt("# service=git-upload-pack\n"), b"0000"]
    for number, (object_id, refname) in enumerate(refs):
        line = f"{object_id} {refname}" + (f"\0{capabilities}" if number == 0 else "") + "\n"
        lines.append(pkt(line))
    return b"".join(lines) + b"0000"


def spec(fake_upstream=None, **fields):
    fields.setdefault("version_url", fake_upstream.url("/owner/repo.git") if fake_upstream else None)
    return ProjectSpec(id=None, name="repo", homepage="https://forge.example/owner/repo", backend=BACKEND, **fields)


def versions(fake_upstream, anitrack_http, project=None):
    found = git.GitBackend().get_versions(project or spec(fake_upstream), anitrack_http.for_check())
    return [v.version for v in found]


# ---- registration, URLs and the pkt-line format ----

def test_registers(register_plugin, anitrack_plugins):
    info = register_plugin(git, "git")
    assert info.status == "loaded", info.error
    backend = anitrack_plugins.backends.get("GIT")
    assert backend.name == "git" and backend.required_version_url and not backend.shared_rate_limit
    assert anitrack_plugins.ecosystems.for_backend("git") is None


def test_urls():
    backend = git.GitBackend()
    assert backend.upstream_url(spec(version_url="https://git.example/r.git/")) == \
        "https://git.example/r.git/info/refs?service=git-upload-pack"
    for bad in (None, "", "git://git.example/r.git", "git.example/r", "https://git.example/r?x=1", "ssh://g/r"):
        with pytest.raises(BackendError, match="set version_url to the repository's HTTPS URL"):
            backend.upstream_url(spec(version_url=bad))


def test_pkt_lines():
    assert list(git.pkt_lines(pkt("hello\n") + b"0000" + pkt("x") + b"0001")) == [b"hello\n", None, b"x", None]
    for bad in (b"00", b"zzzz", b"0003", b"0010abc"):
        with pytest.raises(git.PktLineError):
            list(git.pkt_lines(bad))


def test_tag_names_peeled_once():
    assert git.tag_names([b"HEAD", b"refs/heads/main", b"refs/tags/v1.0", b"refs/tags/v1.0^{}", b"refs/tags/v1.1",
                          b"refs/pull/1/head", b"refs/tags/v1.1^{}"]) == ["v1.0", "v1.1"]


# ---- the fake server ----

def test_smart_advertisement(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(200, advertisement(
        (A, "HEAD"), (A, "refs/heads/main"), (B, "refs/tags/v1.0"), (A, "refs/tags/v1.0^{}"),
        (C, "refs/tags/v1.1"), (B, "refs/pull/7/head"), (C, "refs/tags/release-2")), SMART))
    assert versions(fake_upstream, anitrack_http) == ["v1.0", "v1.1", "release-2"]
    assert fake_upstream.requests[0].method == "GET"


def test_sha256_repository_and_version_line(fake_upstream, anitrack_http):
    body = pkt("# service=git-upload-pack\n") + b"0000" + pkt("version 1\n") + \
        pkt(f"{'d' * 64} refs/tags/v2\0object-format=sha256\n") + b"0000"
    fake_upstream.route(PATH, Answer(200, body, SMART))
    assert versions(fake_upstream, anitrack_http) == ["v2"]


def test_empty_repository(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(200, advertisement(("0" * 40, "capabilities^{}")), SMART))
    assert versions(fake_upstream, anitrack_http) == []


def test_dumb_server(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(200, f"{A}\trefs/heads/main\n{B}\trefs/tags/0.9\n{A}\trefs/tags/0.9^{{}}\n",
                                     {"Content-Type": "text/plain"}))
    assert versions(fake_upstream, anitrack_http) == ["0.9"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        git.GitBackend().get_versions(spec(fake_upstream), anitrack_http.for_check(validators=Validators(etag='"r"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"r"'


def test_not_found_and_private(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/owner/repo\.git/info/refs\?service=git-upload-pack: '
                                           r'server responded with status 404 "Not Found" '
                                           r"\(no git repository at this address\)$"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(401, "", {"WWW-Authenticate": 'Basic realm="git"'}))
    with pytest.raises(BackendError, match=r'status 401 "Unauthorized" \(the repository asks for credentials'):
        versions(fake_upstream, anitrack_http)


def test_rate_limited(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(429, "", {"Retry-After": "10"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


def test_malformed_bodies(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(200, pkt("# service=git-upload-pack\n") + b"00zz", SMART))
    with pytest.raises(BackendError, match="is not a reference advertisement .*bad pkt-line length"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(200, pkt("# service=git-upload-pack\n") + b"0000" + pkt("hello\n"), SMART))
    with pytest.raises(BackendError, match="unexpected pkt-line"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(200, "<html><body>Sign in</body></html>", {"Content-Type": "text/html"}))
    with pytest.raises(BackendError, match="is not a git info/refs file"):
        versions(fake_upstream, anitrack_http)


def test_size_cap_applies(fake_upstream):
    from anitrack_core.check.http import FetchError, FetchPolicy, HttpClient

    fake_upstream.route(PATH, Answer(200, advertisement(*[(A, f"refs/tags/v{n}") for n in range(200)]), SMART))
    with HttpClient(FetchPolicy(user_agent="t", allow_private=True, max_bytes=1000)) as client:
        with pytest.raises(FetchError):
            git.GitBackend().get_versions(spec(fake_upstream), client.for_check())


def test_address_guard_applies(fake_upstream):
    from anitrack_core.check.http import BlockedAddressError, FetchPolicy, HttpClient

    with HttpClient(FetchPolicy(user_agent="t", allow_private=False)) as client:
        with pytest.raises(BlockedAddressError):
            git.GitBackend().get_versions(spec(fake_upstream), client.for_check())
    assert fake_upstream.requests == []


# ---- `anitrack check --dry-run` against the fake server ----

def test_dry_run(run_anitrack, fake_upstream):
    fake_upstream.route(PATH, Answer(200, advertisement(
        (A, "refs/heads/main"), (B, "refs/tags/v1.0"), (A, "refs/tags/v1.0^{}"), (C, "refs/tags/v1.2")), SMART))
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "git", "--name", "repo", "--homepage",
                                  "https://forge.example/owner/repo", "--version-url",
                                  fake_upstream.url("/owner/repo.git"), "--version-prefix", "v", "--json")
    assert code == 0, err
    assert json.loads(out)["versions"] == ["1.2", "1.0"]
