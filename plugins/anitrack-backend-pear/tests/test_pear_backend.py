"""The PEAR backend on its own: URLs, a fake upstream, and the recorded upstream answers.

What every channel shares (errors, conditional requests) is tested with the
base, in plugins/anitrack-backend-pear/tests/test_channel.py.
"""

import pytest

import anitrack_backend_pear
from anitrack_backend_pear import PearBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.testing_upstream import Answer

RELEASES = """<?xml version="1.0" encoding="UTF-8" ?>
<a xmlns="http://pear.php.net/dtd/rest.allreleases">
 <p>PHP_UML</p>
 <c>pear.php.net</c>
 <r><v>1.6.2</v><s>stable</s></r>
 <r><v>1.6.1</v><s>stable</s></r> <r><v>1.6.0RC1</v><s>beta</s></r>
</a>"""
FEED = """<?xml version="1.0" encoding="iso-8859-1"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="https://pear.php.net/"><title>PEAR: Latest releases</title></channel>
<item rdf:about="https://pear.php.net/package/PHP_UML/download/1.6.2/">
 <title>PHP_UML 1.6.2</title><link>https://pear.php.net/package/PHP_UML/download/1.6.2/</link>
</item>
<item><title>Auth 1.7.0</title></item>
<item><title>lonely</title></item>
</rdf:RDF>"""


def spec(name="PHP-UML", **fields):
    return ProjectSpec(id=None, name=name, backend="PEAR", homepage="https://pear.php.net/package/PHP_UML", **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(PearBackend())


def test_recorded_case(register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_pear, "pear")
    recorded_case("pear--get-versions--php-uml")


def test_registers_without_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_pear, "pear")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("pear").name == "PEAR"
    assert anitrack_plugins.ecosystems.for_backend("PEAR") is None


@pytest.mark.parametrize("name, key", [("te-st", "te_st"), ("PHP-UML", "php_uml"), ("PHP_UML", "php_uml"),
                                       ("Auth", "auth")])
def test_url_comes_from_the_name_only(name, key):
    assert PearBackend().upstream_url(spec(name, version_url="x")) == \
        f"https://pear.php.net/rest/r/{key}/allreleases.xml"


def test_versions(fake_upstream, check_http):
    fake_upstream.route("/rest/r/php_uml/allreleases.xml", Answer(200, RELEASES, {"Content-Type": "text/xml"}))
    assert backend_at(fake_upstream).get_versions(spec(), check_http) == ["1.6.2", "1.6.1", "1.6.0RC1"]


def test_feed(fake_upstream, check_http):
    fake_upstream.route("/feed", Answer(200, FEED.encode("latin-1"), {"Content-Type": "text/xml"}))
    entries = backend_at(fake_upstream).recent_releases(check_http)
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("PHP_UML", "1.6.2", "https://pear.php.net/package/PHP_UML"),
        ("PHP-UML", "1.6.2", "https://pear.php.net/package/PHP_UML"),
        ("Auth", "1.7.0", "https://pear.php.net/package/Auth"),
    ]
