"""The shared HTTP layer against real loopback fake upstreams (private upstreams allowed here;
the address guard has its own tests in test_http_ssrf.py)."""

from __future__ import annotations

import gzip
import time
from datetime import datetime, timedelta, timezone

import pytest

from anitrack_core.check.http import (
    EPOCH_HTTP_DATE,
    FetchError,
    FetchPolicy,
    HttpResponse,
    NotModified,
    Validators,
)
from anitrack_core.config import core_settings, load_settings
from anitrack_core.errors import RateLimitError

from .conftest import TEST_UA
from .fakes import Handler


def _ok(body: bytes | str = b"ok", **headers: str):
    def route(h: Handler) -> None:
        h.reply(200, body, {k.replace("_", "-"): v for k, v in headers.items()})

    return route


# --- identity ------------------------------------------------------------------------------


def test_every_request_sends_the_user_agent(upstream, make_client):
    upstream.routes["/a"] = _ok()
    http = make_client().for_check()
    http.get(upstream.url("/a"), headers={"User-Agent": "something else"})
    http.post(upstream.url("/a"), json={"x": 1})
    assert [seen.headers["User-Agent"] for seen in upstream.seen] == [TEST_UA, TEST_UA]
    assert http.requests_made == 2


def test_default_user_agent_names_version_and_base_url():
    settings = load_settings(core_settings(), environ={"ANITRACK_BASE_URL": "https://rm.example.org"},
                             file_values={})
    policy = FetchPolicy.from_settings(settings)
    assert policy.user_agent.startswith("anitrack/")
    assert policy.user_agent.endswith(" (+https://rm.example.org)")
    assert (policy.timeout, policy.deadline, policy.max_bytes, policy.allow_private) == (
        15.0, 60.0, 10 * 1024 * 1024, False)
    custom = load_settings(core_settings(), environ={"ANITRACK_USER_AGENT": "me/2",
                                                     "ANITRACK_ALLOW_PRIVATE_UPSTREAMS": "1"}, file_values={})
    assert FetchPolicy.from_settings(custom).user_agent == "me/2"
    assert FetchPolicy.from_settings(custom).allow_private is True


# --- conditional requests ------------------------------------------------------------------


def test_conditional_request_sends_the_epoch_when_nothing_is_known(upstream, make_client):
    upstream.routes["/"] = _ok(ETag='"v1"', Last_Modified="Wed, 01 Jan 2025 10:00:00 GMT")
    http = make_client().for_check()
    http.get(upstream.url("/"), conditional=True)
    headers = upstream.seen[0].headers
    assert headers["If-Modified-Since"] == EPOCH_HTTP_DATE == "Thu, 01 Jan 1970 00:00:00 GMT"
    assert "If-None-Match" not in headers
    assert http.new_validators == Validators('"v1"', "Wed, 01 Jan 2025 10:00:00 GMT")


def test_conditional_request_sends_stored_validators(upstream, make_client):
    upstream.routes["/"] = _ok()
    known = Validators(etag='W/"abc"', last_modified="Tue, 02 Jan 2024 03:04:05 GMT")
    since = datetime(2020, 1, 1, tzinfo=timezone.utc)
    make_client().for_check(validators=known, fallback_since=since).get(upstream.url("/"), conditional=True)
    headers = upstream.seen[0].headers
    assert headers["If-None-Match"] == 'W/"abc"'
    assert headers["If-Modified-Since"] == "Tue, 02 Jan 2024 03:04:05 GMT"


@pytest.mark.parametrize("since", [
    datetime(2024, 3, 5, 6, 7, 8),  # naive: UTC, as the store keeps it
    datetime(2024, 3, 5, 7, 7, 8, tzinfo=timezone(timedelta(hours=1))),
])
def test_conditional_request_falls_back_to_the_newest_version_time(upstream, make_client, since):
    upstream.routes["/"] = _ok()
    make_client().for_check(validators=Validators(etag='"e"'), fallback_since=since).get(
        upstream.url("/"), conditional=True)
    assert upstream.seen[0].headers["If-Modified-Since"] == "Tue, 05 Mar 2024 06:07:08 GMT"
    assert upstream.seen[0].headers["If-None-Match"] == '"e"'


def test_unconditional_request_sends_no_validators(upstream, make_client):
    upstream.routes["/"] = _ok(ETag='"v1"')
    http = make_client().for_check(validators=Validators('"v0"', "x"))
    http.get(upstream.url("/"))
    assert "If-Modified-Since" not in upstream.seen[0].headers
    assert http.new_validators is None


def test_304_raises_not_modified(upstream, make_client):
    upstream.routes["/"] = lambda h: h.reply(304)
    http = make_client().for_check(validators=Validators('"v1"'))
    with pytest.raises(NotModified):
        http.get(upstream.url("/"), conditional=True)
    with pytest.raises(NotModified):
        http.get_json(upstream.url("/"), conditional=True)
    assert http.new_validators is None


# --- size cap ------------------------------------------------------------------------------


def test_size_cap_refuses_a_long_content_length_before_reading(upstream, make_client):
    def huge(h: Handler) -> None:  # announces 50 MB, then sends nothing
        h.send_response(200)
        h.send_header("Content-Length", str(50 * 1024 * 1024))
        h.end_headers()
        h.wfile.flush()
        h.server.stopping.wait(10)

    upstream.routes["/"] = huge
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"is 52428800 bytes long, more than the 1000 bytes allowed"):
        make_client(max_bytes=1000).for_check().get(upstream.url("/"))
    assert time.monotonic() - started < 2


def test_size_cap_stops_an_endless_chunked_answer(upstream, make_client):
    def endless(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        try:
            for _ in range(100_000):
                h.wfile.write(b"200\r\n" + b"x" * 512 + b"\r\n")
        except OSError:
            pass

    upstream.routes["/"] = endless
    with pytest.raises(FetchError, match=r"longer than the 4096 bytes allowed \(max_response_bytes\)") as info:
        make_client(max_bytes=4096).for_check().get(upstream.url("/"))
    assert upstream.url("/") in str(info.value)


def test_size_cap_counts_decompressed_bytes(upstream, make_client):
    bomb = gzip.compress(b"0" * 5_000_000)
    upstream.routes["/"] = _ok(bomb, Content_Encoding="gzip")
    assert len(bomb) < 10_000
    with pytest.raises(FetchError, match="longer than the 100000 bytes allowed"):
        make_client(max_bytes=100_000).for_check().get(upstream.url("/"))
    upstream.routes["/small"] = _ok(gzip.compress(b"fine"), Content_Encoding="gzip")
    assert make_client(max_bytes=100_000).for_check().get(upstream.url("/small")).content == b"fine"


# --- timeouts and the deadline ------------------------------------------------------------


def test_per_request_timeout(upstream, make_client):
    upstream.routes["/"] = lambda h: (h.server.stopping.wait(5), h.reply(200))
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"did not answer within 0.4 s"):
        make_client(timeout=0.4, deadline=30).for_check().get(upstream.url("/"))
    assert time.monotonic() - started < 2


def test_slow_drip_body_ends_at_the_deadline(upstream, make_client):
    def drip(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", "100000")
        h.end_headers()
        h.drip(b"x" * 100_000, 0.1)  # a byte every 0.1 s: no read ever times out

    upstream.routes["/"] = drip
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"took longer than its deadline of 1.5 s \(check_deadline\)"):
        make_client(timeout=1.0, deadline=1.5).for_check().get(upstream.url("/"))
    assert 1.4 < time.monotonic() - started < 2.5


def test_slow_drip_headers_end_at_the_deadline(upstream, make_client):
    def drip(h: Handler) -> None:
        h.wfile.write(b"HTTP/1.1 200 OK\r\n")
        h.drip(b"X-Padding: " + b"y" * 100_000, 0.1)

    upstream.routes["/"] = drip
    started = time.monotonic()
    with pytest.raises(FetchError, match="took longer than its deadline of 1.5 s"):
        make_client(timeout=1.0, deadline=1.5).for_check().get(upstream.url("/"))
    assert 1.4 < time.monotonic() - started < 2.5


def test_the_deadline_covers_every_request_of_a_check(upstream, make_client):
    upstream.routes["/slow"] = lambda h: (h.server.stopping.wait(0.6), h.reply(200))
    http = make_client(deadline=1.0).for_check()
    http.get(upstream.url("/slow"))
    with pytest.raises(FetchError, match="deadline"):
        http.get(upstream.url("/slow"))
    before = upstream.connections
    with pytest.raises(FetchError, match="deadline"):  # spent: fails at once, without connecting
        http.get(upstream.url("/slow"))
    assert upstream.connections == before
    make_client(deadline=1.0).for_check().get(upstream.url("/slow"))  # a new check has a new deadline


# --- redirects -----------------------------------------------------------------------------


def test_redirects_are_followed(upstream, make_client):
    upstream.routes["/a"] = lambda h: h.reply(301, headers={"Location": "/b"})
    upstream.routes["/b"] = lambda h: h.reply(302, headers={"Location": upstream.url("/c?x=1")})
    upstream.routes["/c"] = _ok("final")
    http = make_client().for_check()
    response = http.get(upstream.url("/a"))
    assert (response.status, response.text, response.url) == (200, "final", upstream.url("/c?x=1"))
    assert http.requests_made == 3


def test_too_many_redirects(upstream, make_client):
    upstream.routes["/loop"] = lambda h: h.reply(302, headers={"Location": "/loop"})
    http = make_client(max_redirects=3).for_check()
    with pytest.raises(FetchError, match=r"too many redirects \(more than 3\)"):
        http.get(upstream.url("/loop"))
    assert http.requests_made == 4


def test_cross_host_redirect_drops_credentials(upstream, make_client):
    names = {"one.test": ["127.0.0.1"], "two.test": ["127.0.0.1"]}
    upstream.routes["/same"] = lambda h: h.reply(302, headers={"Location": "/next"})
    upstream.routes["/other"] = lambda h: h.reply(302, headers={"Location": upstream.url("/next", host="two.test")})
    upstream.routes["/next"] = _ok()
    http = make_client(resolver=lambda host, port: names[host]).for_check()
    secret = {"Authorization": "token s3cret", "Cookie": "session=1"}
    http.get(upstream.url("/same", host="one.test"), headers=secret)
    assert upstream.seen[1].headers.get("Authorization") == "token s3cret"
    http.get(upstream.url("/other", host="one.test"), headers=secret)
    assert upstream.seen[3].headers["Host"] == f"two.test:{upstream.port}"
    assert "Authorization" not in upstream.seen[3].headers
    assert "Cookie" not in upstream.seen[3].headers


def test_a_utf8_location_is_understood(upstream, make_client):
    def moved(h: Handler) -> None:
        h.wfile.write("HTTP/1.1 302 Found\r\nLocation: /t\u00e9l\u00e9chargement\r\nContent-Length: 0\r\n\r\n".encode())

    upstream.routes["/"] = moved
    upstream.routes["/t%C3%A9l%C3%A9chargement"] = _ok("here")
    assert make_client().for_check().get(upstream.url("/")).text == "here"


def test_303_turns_a_post_into_a_get_and_307_keeps_it(upstream, make_client):
    upstream.routes["/see-other"] = lambda h: h.reply(303, headers={"Location": "/target"})
    upstream.routes["/temporary"] = lambda h: h.reply(307, headers={"Location": "/target"})
    upstream.routes["/target"] = _ok()
    http = make_client().for_check()
    http.post(upstream.url("/see-other"), json={"q": 1})
    http.post(upstream.url("/temporary"), json={"q": 1})
    assert [(s.method, s.path, s.body) for s in upstream.seen] == [
        ("POST", "/see-other", b'{"q": 1}'), ("GET", "/target", b""),
        ("POST", "/temporary", b'{"q": 1}'), ("POST", "/target", b'{"q": 1}'),
    ]


# --- answers, JSON, errors -------------------------------------------------------------------


def test_get_json(upstream, make_client):
    upstream.routes["/ok"] = _ok('{"versions": ["1.0"]}', Content_Type="application/json")
    upstream.routes["/bad"] = _ok("<html>", Content_Type="text/html")
    upstream.routes["/gone"] = lambda h: h.reply(404, "nope")
    http = make_client().for_check()
    assert http.get_json(upstream.url("/ok")) == {"versions": ["1.0"]}
    assert upstream.seen[0].headers["Accept"] == "application/json"
    with pytest.raises(FetchError, match=rf'^{upstream.url("/gone")}: server responded with status 404 "Not Found"$'):
        http.get_json(upstream.url("/gone"))
    with pytest.raises(FetchError, match=rf"^{upstream.url('/bad')}: the answer is not valid JSON"):
        http.get_json(upstream.url("/bad"))


def test_fetch_raises_for_a_rate_limit_then_for_the_status_in_one_format(upstream, make_client):
    upstream.routes["/ok"] = _ok("fine")
    upstream.routes["/gone"] = lambda h: h.reply(404, "nope")
    upstream.routes["/api"] = lambda h: h.reply(400, '{"message": "bad name"}')
    upstream.routes["/limited"] = lambda h: h.reply(429, "slow down", {"Retry-After": "60"})
    upstream.routes["/moved"] = lambda h: h.reply(302, headers={"Location": "/gone"})
    http = make_client().for_check()
    assert http.fetch(upstream.url("/ok")).text == "fine"
    with pytest.raises(FetchError, match=rf'^{upstream.url("/gone")}: server responded with status 404 '
                                         r'"Not Found" \(no such package\)$') as caught:
        http.fetch(upstream.url("/gone"), not_found="no such package")
    assert caught.value.status == 404
    with pytest.raises(FetchError, match=r'status 400 "Bad Request" \(bad name\)$'):
        http.fetch(upstream.url("/api"), not_found="not used: not a 404", detail=lambda r: r.json()["message"])
    with pytest.raises(FetchError, match=rf'^{upstream.url("/gone")} \(redirected from {upstream.url("/moved")}\): '
                                         'server responded with status 404'):
        http.fetch(upstream.url("/moved"))
    with pytest.raises(RateLimitError):
        http.fetch(upstream.url("/limited"))


def test_find_versions_uses_the_policys_regex_timeout(make_client, monkeypatch):
    import anitrack_core.check.http.client as client_module

    seen = []
    real = client_module.versions_from_text
    monkeypatch.setattr(client_module, "versions_from_text", lambda *a, **kw: seen.append(kw["timeout"]) or real(*a, **kw))
    http = make_client(regex_timeout=0.3).for_check()
    assert http.find_versions("foo-1.0.tar.gz foo-1.1.tar.gz", r"foo-([\d.]+)\.tar", url="u", project_name="foo") == [
        "1.0", "1.1"]
    assert seen == [0.3]
    assert FetchPolicy.from_settings({"regex_timeout": 0.7}).regex_timeout == 0.7


def test_non_2xx_answers_are_returned_by_get(upstream, make_client):
    response = make_client().for_check().get(upstream.url("/missing"))
    assert (response.status, response.ok, response.reason, response.text) == (404, False, "Not Found", "no such page")
    assert response.headers["content-length"] == response.headers["Content-Length"] == "12"


def test_text_is_decoded_by_charset_with_utf8_fallback():
    latin = HttpResponse("u", 200, {"Content-Type": "text/html; charset=ISO-8859-1"}, "café".encode("latin-1"))
    assert latin.text == "café"
    plain = HttpResponse("u", 200, {}, "café".encode() + b"\xff")
    assert plain.text == "café\ufffd"
    unknown = HttpResponse("u", 200, {"content-type": "text/plain; charset=no-such"}, b"abc")
    assert unknown.text == "abc"


def test_failures_name_the_url(make_client):
    http = make_client().for_check()
    with pytest.raises(FetchError, match=r"^http://127.0.0.1:1/x: the connection failed \(Connection refused\)$"):
        http.get("http://127.0.0.1:1/x")
    with pytest.raises(FetchError, match=r"^no URL to fetch \(got None\)$"):
        http.get(None)  # type: ignore[arg-type]


def test_connections_are_kept_alive_and_no_cookies_are_kept(upstream, make_client):
    upstream.routes["/"] = _ok(Set_Cookie="tracker=1; Path=/")
    client = make_client()
    client.for_check().get(upstream.url("/"))
    client.for_check().get(upstream.url("/"))
    assert upstream.connections == 1
    assert "Cookie" not in upstream.seen[1].headers


def test_proxies_from_the_environment_are_ignored(upstream, make_upstream, make_client, monkeypatch):
    proxy = make_upstream()
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.setenv(name, proxy.url("/"))
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    upstream.routes["/"] = _ok("direct")
    assert make_client().for_check().get(upstream.url("/")).text == "direct"
    assert proxy.connections == 0


# --- rate limits -----------------------------------------------------------------------------


@pytest.mark.parametrize("status, headers, expected", [
    (429, {"Retry-After": "120"}, timedelta(seconds=120)),
    (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "{reset}"}, timedelta(seconds=600)),
    (429, {"Retry-After": "{date}"}, timedelta(seconds=300)),
    (429, {}, timedelta(hours=1)),
    (429, {"Retry-After": "soon"}, timedelta(hours=1)),
    (429, {"Retry-After": "99999999999"}, timedelta(hours=24)),  # a hostile upstream cannot pause for years
])
def test_rate_limits_are_detected(make_client, status, headers, expected):
    now = datetime.now(timezone.utc).replace(microsecond=0)
    from email.utils import format_datetime

    values = {k: v.format(reset=int((now + timedelta(seconds=600)).timestamp()),
                          date=format_datetime(now + timedelta(seconds=300), usegmt=True))
              for k, v in headers.items()}
    http = make_client().for_check()
    with pytest.raises(RateLimitError) as info:
        http.raise_for_rate_limit(HttpResponse("https://api.test/x", status, values, b""))
    reset = info.value.reset_time
    assert reset.tzinfo is not None and reset.utcoffset() == timedelta(0)
    assert abs((reset - now) - expected) < timedelta(seconds=5)
    assert str(info.value) == f'Rate limit was reached. Will be reset in "{reset.isoformat(timespec="seconds")}".'


def test_other_answers_are_not_rate_limits(make_client, upstream):
    http = make_client().for_check()
    http.raise_for_rate_limit(HttpResponse("u", 403, {"X-RateLimit-Remaining": "12"}, b""))
    http.raise_for_rate_limit(HttpResponse("u", 403, {}, b""))
    http.raise_for_rate_limit(HttpResponse("u", 200, {"X-RateLimit-Remaining": "0"}, b""))
    upstream.routes["/"] = lambda h: h.reply(429, "slow down", {"Retry-After": "30"})
    with pytest.raises(RateLimitError):
        http.get_json(upstream.url("/"))


# --- host slots and rate-limit pauses, on every hop ------------------------------------------


class RecordingSlots:
    """HostSlots that note, for each slot taken, the hosts whose slot was held at that moment."""

    def __init__(self):
        from anitrack_core.check.http import HostSlots

        self.real, self.held, self.taken = HostSlots(1), [], []

    def slot(self, url):
        from contextlib import contextmanager
        from urllib.parse import urlsplit

        @contextmanager
        def hold():
            host = urlsplit(url).hostname
            with self.real.slot(url):
                self.taken.append((host, list(self.held)))
                self.held.append(host)
                try:
                    yield
                finally:
                    self.held.remove(host)

        return hold()


def test_every_redirect_hop_waits_for_a_slot_of_its_own_host(upstream, make_client):
    names = {"one.test": ["127.0.0.1"], "two.test": ["127.0.0.1"]}
    upstream.routes["/start"] = lambda h: h.reply(302, headers={"Location": upstream.url("/end", host="two.test")})
    upstream.routes["/end"] = _ok("arrived")
    slots = RecordingSlots()
    client = make_client(resolver=lambda host, port: names[host])
    http = client.for_check(slots=slots)
    assert http.get(upstream.url("/start", host="one.test")).text == "arrived"
    assert slots.taken == [("one.test", []), ("two.test", [])], "the first host's slot is given back before the hop"


def test_a_paused_backend_sends_nothing_not_even_a_redirect_hop(upstream, make_client):
    from anitrack_core.check.http import RateLimitPauses

    pauses = RateLimitPauses()
    reset = datetime.now(timezone.utc) + timedelta(hours=1)

    def pause_then_redirect(h: Handler) -> None:
        pauses.pause("SomeBackend", reset)  # another check of the backend hit the limit meanwhile
        h.reply(302, headers={"Location": "/next"})

    upstream.routes["/start"] = pause_then_redirect
    upstream.routes["/next"] = _ok()
    http = make_client().for_check(pauses=pauses, pause_key="somebackend")
    with pytest.raises(RateLimitError) as caught:
        http.get(upstream.url("/start"))
    assert caught.value.reset_time == reset
    assert [request.path for request in upstream.seen] == ["/start"]
    other = make_client().for_check(pauses=pauses, pause_key="OtherBackend")
    assert other.get(upstream.url("/next")).ok


# --- concurrency -----------------------------------------------------------------------------


def test_one_client_serves_many_threads_each_with_its_own_deadline(upstream, make_client):
    from concurrent.futures import ThreadPoolExecutor

    def drip(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", "1000")
        h.end_headers()
        h.drip(b"x" * 1000, 0.05)

    upstream.routes["/fast"] = lambda h: h.reply(200, h.path)
    upstream.routes["/drip"] = drip
    # 3 s: the drip takes 50 s, and the 20 fast requests of a check must fit even on a busy machine
    # (with 1 s they did not, under xdist beside other jobs)
    client = make_client(deadline=3.0)

    def slow_check() -> str:
        with pytest.raises(FetchError, match="deadline"):
            client.for_check().get(upstream.url("/drip"))
        return "cut"

    def fast_check(index: int) -> str:
        http = client.for_check()
        return "".join(http.get(upstream.url(f"/fast?{index}-{n}")).text for n in range(20))

    with ThreadPoolExecutor(8) as pool:
        slow = [pool.submit(slow_check) for _ in range(2)]
        fast = [pool.submit(fast_check, index) for index in range(6)]
        assert [f.result() for f in slow] == ["cut", "cut"]
        assert [f.result() for f in fast] == ["".join(f"/fast?{i}-{n}" for n in range(20)) for i in range(6)]
    assert upstream.connections <= 8


def _inside_slot(slots, url):
    """Enter a slot of *url*'s host in a thread; returns (entered, leave) events."""
    import threading

    entered, leave = threading.Event(), threading.Event()

    def hold():
        with slots.slot(url):
            entered.set()
            leave.wait(5)

    threading.Thread(target=hold, daemon=True).start()
    return entered, leave


def test_a_bound_declared_later_applies_to_a_host_already_in_use():
    from anitrack_core.check.http import HostSlots

    slots, url = HostSlots(1), "http://A.example/x"
    first = _inside_slot(slots, url)
    second = _inside_slot(slots, url)
    try:
        assert first[0].wait(2) and not second[0].wait(0.2)  # check_per_host 1
        slots.declare({"a.example": 2})
        assert second[0].wait(2)  # the bound grew: the waiting request goes
        slots.declare({"a.example": 3})  # a backend asking for more: the smallest holds
        slots.declare({"a.example": 1})  # a backend asking for less: it holds
        first[1].set()
        second[1].set()
        third, fourth = _inside_slot(slots, url), _inside_slot(slots, url)
        assert third[0].wait(2) or fourth[0].wait(2)
        time.sleep(0.3)
        assert [third[0].is_set(), fourth[0].is_set()].count(True) == 1  # bound 1 again
        third[1].set()
        fourth[1].set()
    finally:
        for _entered, leave in (first, second):
            leave.set()
    assert HostSlots(4, {"A.Example": 8}).bound("a.example") == 8
