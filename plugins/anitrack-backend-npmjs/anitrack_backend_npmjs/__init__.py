"""The ``npmjs`` backend and the ``npm`` ecosystem: packages on the npm registry.

Versions are the keys of ``versions`` in the package document at
``https://registry.npmjs.org/<name>`` (scoped names such as ``@types/node``
included).  The abbreviated document (the one ``npm install`` reads) is asked
for: it has every version and is a fraction of the size of the full one.
The registry's CouchDB changes feed lists recent publications
(:meth:`NpmjsBackend.recent_releases`).
"""

from __future__ import annotations

from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError

#: the abbreviated package document, falling back to the full one
ACCEPT = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*"


class NpmjsBackend(Backend):
    name = "npmjs"
    examples = ["https://www.npmjs.org/package/request", "https://www.npmjs.org/package/colors"]
    more_info = ("Set the name to the package's name on the npm registry, with its scope if it has one "
                 "(@scope/name); homepage and version_url are not used to find it.")
    #: where the registry lives (tests point it at a fake upstream)
    api_base = "https://registry.npmjs.org"
    #: the registry is served by a CDN
    host_concurrency = {"registry.npmjs.org": 64}
    feed_url = ("https://skimdb.npmjs.com/registry/_changes?feed=normal&descending=true&limit=40"
                "&include_docs=true&attachments=false")

    def upstream_url(self, project) -> str:
        """The registry URL of *project*'s package document (its version_url is ignored)."""
        return f"{self.api_base}/{quote(project.name.strip(), safe='@')}"

    def get_versions(self, project, http):
        url = self.upstream_url(project)
        data = http.get_json(url, headers={"Accept": ACCEPT}, conditional=True,
                             not_found="no such package on the npm registry")
        found = data.get("versions") if isinstance(data, dict) and "error" not in data else None
        if not isinstance(found, dict):
            raise BackendError(f"No versions found at {url}")
        return list(found)

    def recent_releases(self, http):
        """Recent changes of the registry: one entry per version of each changed package (deleted ones skipped)."""
        data = http.get_json(self.feed_url)
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise BackendError(f"{self.feed_url}: unexpected answer (no list of results)")
        entries = []
        for change in results:
            doc = change.get("doc") if isinstance(change, dict) and not change.get("deleted") else None
            if not isinstance(doc, dict) or not isinstance(doc.get("name") or change.get("id"), str):
                continue
            name = doc.get("name") or change["id"]
            homepage = doc.get("homepage") if isinstance(doc.get("homepage"), str) else None
            homepage = homepage or f"https://npmjs.org/package/{name}"
            versions = doc.get("versions") if isinstance(doc.get("versions"), dict) else {}
            entries.extend(FeedEntry(name, version, homepage) for version in versions)
        return entries


class NpmEcosystem(Ecosystem):
    name = "npm"
    default_backend = "npmjs"
    aliases = ["npmjs"]


@hookimpl
def anitrack_register_backends(registry):
    registry.add(NpmjsBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(NpmEcosystem)
