"""The replay of recorded answers (anitrack_core.testing_replay) under the check engine's HTTP client."""

import gzip
import textwrap

import pytest
import yaml

from anitrack_core.check.http import FetchError, FetchPolicy, NotModified
from anitrack_core.testing_replay import Cassette, ReplayClient, find_cassette, recordings_dir, request_key


def write_cassette(tmp_path, interactions, name="cassette"):
    """A vcrpy-format cassette file from ``(method, uri, status, headers, body)`` tuples."""
    data = {"version": 1, "interactions": [
        {"request": {"method": method, "uri": uri, "body": None, "headers": {}},
         "response": {"status": {"code": status, "message": "OK" if status == 200 else "Other"},
                      "headers": {k: [v] for k, v in headers.items()}, "body": {"string": body}}}
        for method, uri, status, headers, body in interactions]}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def client_for(tmp_path, interactions, **policy):
    return ReplayClient(write_cassette(tmp_path, interactions),
                        FetchPolicy(user_agent="replay-test", **policy) if policy else None)


def test_answers_a_recorded_request(tmp_path):
    with client_for(tmp_path, [("GET", "https://up.example/releases?a=1&b=2", 200,
                                {"Content-Type": "text/html; charset=utf-8"}, "<a>1.0</a>")]) as client:
        response = client.for_check().get("https://up.example/releases?b=2&a=1")  # query order does not matter
        assert (response.status, response.text) == (200, "<a>1.0</a>")
        assert client.misses == [] and client.unplayed() == []
        assert client.sent[0].headers["User-Agent"] == "anitrack-replay (tests)"


def test_each_interaction_answers_once(tmp_path):
    with client_for(tmp_path, [("GET", "https://up.example/x", 200, {}, "one"),
                               ("GET", "https://up.example/x", 200, {}, "two")]) as client:
        http = client.for_check()
        assert [http.get("https://up.example/x").text for _ in range(2)] == ["one", "two"]
        with pytest.raises(FetchError, match="connection failed.*not recorded in the cassette"):
            http.get("https://up.example/x")
        assert client.misses == [("GET", "https://up.example/x")]


@pytest.mark.parametrize("method, url", [
    ("POST", "https://up.example/x"),       # method
    ("GET", "http://up.example/x"),         # scheme (and port)
    ("GET", "https://other.example/x"),     # host
    ("GET", "https://up.example:8443/x"),   # port
    ("GET", "https://up.example/y"),        # path
    ("GET", "https://up.example/x?page=2"),  # query
])
def test_an_unrecorded_request_fails_like_a_connection_error(tmp_path, method, url):
    with client_for(tmp_path, [("GET", "https://up.example/x", 200, {}, "ok")]) as client:
        http = client.for_check()
        with pytest.raises(FetchError, match="the connection failed"):
            http.post(url, json={}) if method == "POST" else http.get(url)
        assert client.misses == [(method, url)]


def test_headers_and_bodies_are_not_matched(tmp_path):
    with client_for(tmp_path, [("POST", "https://api.example/graphql", 200, {}, '{"data": 1}')]) as client:
        http = client.for_check()
        assert http.post("https://api.example/graphql", json={"query": "anything"},
                         headers={"Authorization": "bearer x"}).json() == {"data": 1}
        assert client.sent[0].headers["Authorization"] == "bearer x"


def test_redirects_are_followed_by_the_client(tmp_path):
    with client_for(tmp_path, [
        ("GET", "https://up.example/old", 301, {"Location": "https://new.example/here"}, ""),
        ("GET", "https://new.example/here", 200, {}, "moved"),
    ]) as client:
        response = client.for_check().get("https://up.example/old", headers={"Authorization": "secret"})
        assert (response.url, response.text) == ("https://new.example/here", "moved")
        assert "Authorization" not in client.sent[1].headers  # dropped on the way to another host


def test_conditional_requests(tmp_path):
    with client_for(tmp_path, [("GET", "https://up.example/x", 304, {}, "")]) as client:
        with pytest.raises(NotModified):
            client.for_check().get("https://up.example/x", conditional=True)
        assert client.sent[0].headers["If-Modified-Since"] == "Thu, 01 Jan 1970 00:00:00 GMT"


def test_the_size_cap_holds(tmp_path):
    with client_for(tmp_path, [("GET", "https://up.example/big", 200, {}, "x" * 5000)], max_bytes=1000) as client:
        with pytest.raises(FetchError, match="1000 bytes allowed"):
            client.for_check().get("https://up.example/big")


def test_gzip_bodies_are_decompressed_in_memory(tmp_path):
    body = gzip.compress(b'{"versions": ["1.0"]}')
    path = write_cassette(tmp_path, [("GET", "https://up.example/j", 200,
                                      {"Content-Encoding": "gzip", "Content-Length": str(len(body))}, body)])
    before = path.read_bytes()
    cassette = Cassette.load(path)
    assert dict(cassette.interactions[0].headers)["Content-Length"] == str(len(b'{"versions": ["1.0"]}'))
    assert "Content-Encoding" not in dict(cassette.interactions[0].headers)
    with ReplayClient(cassette) as client:
        assert client.for_check().get_json("https://up.example/j") == {"versions": ["1.0"]}
    assert path.read_bytes() == before


def test_old_python_unicode_tags(tmp_path):
    path = tmp_path / "old"
    path.write_text(textwrap.dedent("""\
        interactions:
        - request:
            body: null
            headers: {}
            method: GET
            uri: https://up.example/x
          response:
            body: {string: !!python/unicode "caf\\xE9"}
            headers: {Content-Type: [text/plain; charset=utf-8]}
            status: {code: 200, message: OK}
        version: 1
        """), encoding="utf-8")
    with ReplayClient(path) as client:
        assert client.for_check().get("https://up.example/x").text == "café"


def test_unsafe_tags_are_refused(tmp_path):
    path = tmp_path / "evil"
    path.write_text("interactions: !!python/object/apply:os.system ['true']\n", encoding="utf-8")
    with pytest.raises(yaml.YAMLError):
        Cassette.load(path)


def test_not_a_cassette(tmp_path):
    path = tmp_path / "x"
    path.write_text("a: 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a vcrpy cassette"):
        Cassette.load(path)


def test_request_key():
    assert request_key("get", "HTTPS://Up.Example/p?b=2&a=1") == ("GET", "https", "up.example", 443, "/p",
                                                                  [("a", "1"), ("b", "2")])


def test_recordings_dir_override(tmp_path, monkeypatch):
    (tmp_path / "cassettes").mkdir()
    (tmp_path / "cassettes" / "one").write_text("interactions: []\n", encoding="utf-8")
    monkeypatch.setenv("ANITRACK_RECORDINGS", str(tmp_path))
    assert recordings_dir() == tmp_path
    assert find_cassette("one") == tmp_path / "cassettes" / "one"
    assert find_cassette("two") is None
    monkeypatch.setenv("ANITRACK_RECORDINGS", str(tmp_path / "absent"))
    assert recordings_dir() is None


def test_fixture(replay_http, tmp_path):
    client = replay_http(write_cassette(tmp_path, [("GET", "https://up.example/x", 200, {}, "ok")]))
    assert client.for_check().get("https://up.example/x").text == "ok"
