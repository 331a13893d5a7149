"""The ``anitrack`` command: the operator contract of ARCHITECTURE.md.

Every command exits 0 on success, 1 on an error it can explain (printed as
``anitrack: error: ...`` on stderr) and 2 on a usage error; ``anitrack check``
exits 3 when its pass completed but some checks failed (see docs/operator-guide.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .errors import AnitrackError
from .runtime import Runtime, load_runtime
from .scale import BATCH_SIZE as SCALE_BATCH_SIZE

Handler = Callable[[argparse.Namespace], int]
#: ``anitrack check``: the pass completed, and some checks failed (their count is in the summary line)
EXIT_CHECKS_FAILED = 3


def _cmd_db_upgrade(args: argparse.Namespace) -> int:
    from .db.migrate import upgrade

    from .db.listings import refresh_missing
    from .listing import SchemeCache

    runtime = load_runtime(require_schema=False)
    applied = upgrade(runtime.db)
    for name in applied:
        print(f"applied {name}")
    with runtime.db.connection_context():
        listed = refresh_missing(SchemeCache(runtime.plugins))
    if listed:
        print(f"computed the version listing of {listed} project(s)")
    print("database schema is up to date" + ("" if applied or listed else " (nothing to do)"))
    return 0


def _cmd_db_status(args: argparse.Namespace) -> int:
    from .db.database import redact
    from .db.migrate import pending

    runtime = load_runtime(require_schema=False)
    waiting = pending(runtime.db)
    print(f"database: {redact(runtime.settings.database_url)}")
    print("pending migrations: " + (", ".join(waiting) if waiting else "none"))
    return 0


def _cmd_user_add(args: argparse.Namespace) -> int:
    from .db.accounts import add_user

    load_runtime()
    user = add_user(args.email, args.username, admin=args.admin)
    print(user.id)
    return 0


def _cmd_token_add(args: argparse.Namespace) -> int:
    from .db.accounts import add_token, find_user

    runtime = load_runtime()
    with runtime.db.atomic():
        secret = add_token(find_user(args.email), args.description)
    print("token created; it is shown only once:", file=sys.stderr)
    print(secret)
    return 0


def _cmd_distro_add(args: argparse.Namespace) -> int:
    from .db.distros import add_distro

    load_runtime()
    distro, created = add_distro(args.name)
    print(f"{'added' if created else 'already present'}: {distro.name}")
    return 0


def _plugins_report(runtime: Runtime) -> dict[str, Any]:
    plugins = runtime.plugins

    def rows(registry: Any) -> list[dict[str, Any]]:
        out = []
        for name, cls in registry.items():
            owner = plugins.info.get(registry.plugin_of(name))
            out.append({"name": name, "plugin": registry.plugin_of(name),
                        "distribution": owner.distribution if owner else None,
                        "description": (getattr(cls, "description", None) or getattr(cls, "more_info", None)
                                        or getattr(cls, "title", None))})
        return out

    return {
        "plugins": [info.as_dict() for info in plugins.info.values()],
        "backends": rows(plugins.backends),
        "ecosystems": rows(plugins.ecosystems),
        "schemes": rows(plugins.schemes),
        "identity_providers": rows(plugins.identity_providers),
    }


def _cmd_plugins(args: argparse.Namespace) -> int:
    report = _plugins_report(load_runtime(database=False))
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    for info in report["plugins"]:
        where = f"{info['distribution'] or '?'} {info['version'] or ''}".strip()
        print(f"{info['name']:<34} {info['status']:<9} {where}")
        if info["error"]:
            print(f"    error: {info['error']}")
    for kind in ("backends", "ecosystems", "schemes", "identity_providers"):
        names = ", ".join(row["name"] for row in report[kind]) or "(none)"
        print(f"{kind.replace('_', ' ')}: {names}")
    return 0


def _cmd_config(args: argparse.Namespace) -> int:
    runtime = load_runtime(database=False)
    rows = runtime.settings.public_items()
    if args.json:
        print(json.dumps({key: {"value": str(value) if value is not None else None, "source": source}
                          for key, value, source in rows}, indent=2, sort_keys=True))
        return 0
    for key, value, source in rows:
        print(f"{key} = {value!r}    # {source}")
    return 0


def _cmd_versions(args: argparse.Namespace) -> int:
    from .versions import VersionRules

    runtime = load_runtime(database=False)
    rules = VersionRules(prefix=args.prefix, pre_release_filter=args.pre_release_filter,
                         version_filter=args.version_filter, pattern=args.pattern)
    scheme_cls = runtime.plugins.schemes.get(args.scheme)
    scheme = scheme_cls(rules)
    invalid = [raw for raw in args.version if not scheme.is_valid(raw)]
    if invalid and args.strict:
        scheme.validate(invalid[0])
    kept = scheme.newest_first(scheme.keep(args.version))
    rows = [{"version": raw, "display": scheme.display(raw), "valid": scheme.is_valid(raw),
             "pre_release": scheme.is_prerelease(raw)} for raw in kept]
    if args.json:
        print(json.dumps({"scheme": scheme_cls.name, "versions": rows,
                          "skipped": [v for v in args.version if v not in kept]}, indent=2))
        return 0
    for row in rows:
        marks = [m for m, on in (("pre-release", row["pre_release"]), ("invalid", not row["valid"])) if on]
        print(row["display"] + (f"    ({', '.join(marks)})" if marks else ""))
    return 0


def _temporary_spec(args: argparse.Namespace) -> Any:
    from .check.spec import ProjectSpec

    missing = [flag for flag, value in (("--backend", args.backend), ("--name", args.name),
                                        ("--homepage", args.homepage)) if not value]
    if missing:
        raise AnitrackError(f"a dry run of a temporary project needs {', '.join(missing)}")
    return ProjectSpec(id=None, name=args.name, homepage=args.homepage, backend=args.backend,
                       version_url=args.version_url, regex=args.regex, version_scheme=args.version_scheme,
                       version_prefix=args.version_prefix, pre_release_filter=args.pre_release_filter,
                       version_filter=args.version_filter, version_pattern=args.version_pattern,
                       insecure=args.insecure, releases_only=args.releases_only)


class _PassProgress:
    """The progress of a check pass on stderr (a bar on a terminal, lines in a log), from its first batch."""

    def __init__(self) -> None:
        self._shown: Any = None

    def update(self, done: int, total: int) -> None:
        from .progress import Progress

        if self._shown is None:
            self._shown = Progress("checks", total)
        self._shown.advance(done - self._shown.done)

    def close(self) -> None:
        if self._shown is not None:
            self._shown.close()
            self._shown = None


def _cmd_check(args: argparse.Namespace) -> int:
    from .check.runner import Checker, PassFailed
    from .check.temporary import check_temporary

    if args.dry_run:
        runtime = load_runtime(database=False)
        try:
            report = check_temporary(Checker(runtime), _temporary_spec(args))
        except AnitrackError as exc:
            report = {"error": str(exc)}
        if args.json:
            print(json.dumps(report, indent=2))
        elif "error" in report:
            print(f"anitrack: error: {report['error']}", file=sys.stderr)
        else:
            print("\n".join(report["versions"]) or "(no versions)")
        return 1 if "error" in report else 0
    runtime = load_runtime()
    if args.history is not None:
        return _check_history(args.history, as_json=args.json)
    checker = Checker(runtime)
    shown = _PassProgress()
    try:
        summary = checker.run_pass(everything=args.all, ids=args.project or None, progress=shown.update)
    except PassFailed as exc:
        shown.close()
        print(exc.summary.line())
        raise
    finally:
        shown.close()
        checker.http.close()
    print(summary.line())
    return EXIT_CHECKS_FAILED if summary.errors else 0


def _check_history(limit: int, *, as_json: bool) -> int:
    from .db.passes import recent_passes, shown

    rows = []
    for run in recent_passes(limit):
        state, cause = shown(run)
        seconds = (run.finished_on - run.started_on).total_seconds() if run.finished_on and run.started_on else None
        rows.append({"id": run.id, "state": state, "started_on": run.started_on or run.created_on,
                     "finished_on": run.finished_on, "seconds": seconds, "checked": run.total_count,
                     "ok": run.success_count, "errors": run.error_count, "ratelimited": run.ratelimit_count,
                     "cause": cause, "owner": run.owner})
    if as_json:
        print(json.dumps(rows, indent=2, default=str))
        return 0
    for row in rows:
        took = f" in {row['seconds']:.1f} s" if row["seconds"] is not None else ""
        by = f" by {row['owner']}" if row["owner"] else ""
        print(f"pass {row['id']} started {row['started_on']:%Y-%m-%d %H:%M:%S}{by}: {row['state']}{took}; checked "
              f"{row['checked']}, ok {row['ok']}, errors {row['errors']}, ratelimited {row['ratelimited']}")
        if row["cause"]:
            print(f"    {row['cause']}")
    if not rows:
        print("no check pass recorded")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from anitrack_web.server import serve

    return serve(load_runtime(), host=args.host, port=args.port, scheduler=not args.no_scheduler,
                 workers=args.workers)


def _cmd_events_status(args: argparse.Namespace) -> int:
    from .events import backlog

    runtime = load_runtime()
    with runtime.db.connection_context():
        state = backlog().as_dict()
    if args.json:
        print(json.dumps(state, indent=2, sort_keys=True))
        return 0
    age = state["oldest_unpublished_age_seconds"]
    print(f"backlog: {state['backlog']} event(s) waiting for the broker")
    if age is not None:
        print(f"oldest unpublished: event {state['oldest_unpublished_id']}, {age:.0f} s old, "
              f"{state['oldest_unpublished_attempts']} failed attempt(s)")
    print(f"last published: {state['last_published_on'] or 'never'}")
    print(f"publisher: {state['publisher'] or 'none running'}")
    return 0


def _log_to_stderr() -> None:
    import logging

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def _run_until_stopped(worker: Any, banner: str) -> None:
    """Run a relay's loop in this thread until Ctrl-C or SIGTERM."""
    import signal as signals

    print(banner + "; Ctrl-C stops", file=sys.stderr, flush=True)
    signals.signal(signals.SIGTERM, lambda *_: worker.stop(timeout=0))
    try:
        worker.run()
    except KeyboardInterrupt:
        pass


def _cmd_events_publish(args: argparse.Namespace) -> int:
    from .db.database import redact
    from .events.publisher import BrokerError, Publisher

    _log_to_stderr()
    runtime = load_runtime()
    publisher = Publisher(runtime.settings)
    if args.once:
        try:
            with runtime.db.connection_context():
                sent = publisher.relay()
                standing_by = not publisher.holds_lease
        except BrokerError as exc:
            print(f"anitrack: error: {exc}", file=sys.stderr)
            return 1
        finally:
            publisher.close()
        if standing_by:
            print("anitrack: error: another publisher is relaying the outbox now", file=sys.stderr)
            return 1
        print(f"published {sent} event(s)")
        return 0
    _run_until_stopped(publisher, f"relaying events to {redact(runtime.settings.broker_url)} (exchange "
                                  f"{runtime.settings.events_exchange!r}, prefix {runtime.settings.topic_prefix!r})")
    print(f"published {publisher.published} event(s)", file=sys.stderr)
    return 0


def _cmd_webhooks_relay(args: argparse.Namespace) -> int:
    from .webhooks.relay import WebhookRelay

    _log_to_stderr()
    runtime = load_runtime()
    relay = WebhookRelay(runtime.settings)
    if args.once:
        try:
            relay.drain()
        finally:
            relay.stop()
        return 0
    _run_until_stopped(relay, "delivering events to webhook subscriptions")
    return 0


def _cmd_worker(args: argparse.Namespace) -> int:
    from .scale.worker import run_worker

    _log_to_stderr()
    runtime = load_runtime()
    return run_worker(runtime, concurrency=args.concurrency or runtime.settings["scale.concurrency"],
                      name=args.name, loglevel=args.loglevel)


def _cmd_scheduler(args: argparse.Namespace) -> int:
    from .db.database import redact
    from .scale.app import require_broker, work_queue_url
    from .scale.scheduler import ScaleScheduler

    _log_to_stderr()
    runtime = load_runtime()
    scheduler = ScaleScheduler(runtime, batch_size=args.batch_size, claim_seconds=args.claim_seconds)
    url = work_queue_url(runtime.settings)
    require_broker(scheduler.app, url)
    _run_until_stopped(scheduler, f"enqueueing due projects on {redact(url)} "
                                  f"(batches of {args.batch_size}; one scheduler is active at a time)")
    print(f"enqueued {scheduler.enqueued_projects} project(s) in {scheduler.enqueued_batches} batch(es)",
          file=sys.stderr)
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from .importer import import_api, import_database

    runtime = load_runtime()
    if args.import_command == "anitya-db":
        report = import_database(runtime, args.url, batch_size=args.batch_size, publish_events=args.publish_events,
                                 restart=args.restart, progress=not args.quiet)
    else:
        report = import_api(runtime, args.url, rate=args.rate, items_per_page=args.items_per_page,
                            version_dates=args.version_dates, publish_events=args.publish_events,
                            restart=args.restart, progress=not args.quiet)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2, default=str))
    else:
        print("\n".join(report.lines()))
    return 0


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anitrack", description="Track upstream projects and the versions they publish.",
        epilog="Settings come from the TOML file named by ANITRACK_CONFIG and ANITRACK_* variables; "
               "see `anitrack config`.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    db = sub.add_parser("db", help="database schema").add_subparsers(dest="db_command", required=True)
    db.add_parser("upgrade", help="create or migrate the schema (idempotent)").set_defaults(func=_cmd_db_upgrade)
    db.add_parser("status", help="show the database and its pending migrations").set_defaults(func=_cmd_db_status)

    user = sub.add_parser("user", help="users").add_subparsers(dest="user_command", required=True)
    add = user.add_parser("add", help="add a user; prints the user id")
    add.add_argument("--email", required=True)
    add.add_argument("--username", required=True)
    add.add_argument("--admin", action="store_true", help="make the user an administrator")
    add.set_defaults(func=_cmd_user_add)

    token = sub.add_parser("token", help="API tokens").add_subparsers(dest="token_command", required=True)
    add = token.add_parser("add", help="make an API token; prints it as the last line")
    add.add_argument("--email", required=True, help="the user's e-mail")
    add.add_argument("--description", help="what the token is for")
    add.set_defaults(func=_cmd_token_add)

    distro = sub.add_parser("distro", help="distributions").add_subparsers(dest="distro_command", required=True)
    add = distro.add_parser("add", help="add a distribution (idempotent)")
    add.add_argument("name")
    add.set_defaults(func=_cmd_distro_add)

    plugins = sub.add_parser("plugins", help="list plugins, backends, ecosystems and version schemes")
    plugins.add_argument("--json", action="store_true", help="machine-readable output")
    plugins.set_defaults(func=_cmd_plugins)

    config = sub.add_parser("config", help="show the effective settings and where each comes from")
    config.add_argument("--json", action="store_true", help="machine-readable output")
    config.set_defaults(func=_cmd_config)

    versions = sub.add_parser("versions", help="sort versions with a scheme and project rules (newest first)")
    versions.add_argument("version", nargs="+", help="raw version strings")
    versions.add_argument("--scheme", default="RPM", help="version scheme name (default: RPM)")
    versions.add_argument("--prefix", help="version_prefix: ';'-separated prefixes to strip")
    versions.add_argument("--pattern", help="version_pattern, for the Calendar scheme")
    versions.add_argument("--pre-release-filter", help="';'-separated pre-release filters")
    versions.add_argument("--version-filter", help="';'-separated filters of versions to skip")
    versions.add_argument("--strict", action="store_true", help="fail on the first invalid version")
    versions.add_argument("--json", action="store_true", help="machine-readable output")
    versions.set_defaults(func=_cmd_versions)

    check = sub.add_parser("check", help="check projects for new versions now (one pass)",
                           description="Without options: the projects that are due. --dry-run checks a "
                                       "temporary project described by the options and saves nothing.",
                           epilog="Exit codes: 0 every check succeeded (or was rate-limited); 3 the pass completed "
                                  "but some checks failed (the summary line counts them); 1 the pass could not "
                                  "complete (one 'anitrack: error:' line says why; the pass record too); 2 usage.")
    which = check.add_mutually_exclusive_group()
    which.add_argument("--all", action="store_true", help="every project that is not archived")
    which.add_argument("--project", type=int, action="append", metavar="ID", help="this project (repeatable)")
    which.add_argument("--dry-run", action="store_true", help="check a temporary project; nothing is saved")
    which.add_argument("--history", type=_positive_int, nargs="?", const=10, metavar="N",
                       help="show the records of the N latest passes (default 10) instead of checking")
    for flag in ("backend", "name", "homepage", "version-url", "regex", "version-scheme", "version-prefix",
                 "version-pattern", "pre-release-filter", "version-filter"):
        check.add_argument(f"--{flag}", help=f"the temporary project's {flag.replace('-', '_')} (with --dry-run)")
    check.add_argument("--releases-only", action="store_true", help="GitHub-type backends: releases, not tags")
    check.add_argument("--insecure", action="store_true", help="do not validate the upstream certificate")
    check.add_argument("--json", action="store_true", help="machine-readable output (with --dry-run or --history)")
    check.set_defaults(func=_cmd_check)

    imports = sub.add_parser("import", help="move from Anitya: import its database or what its API shows").add_subparsers(
        dest="import_command", required=True)
    from_db = imports.add_parser("anitya-db", help="import an Anitya database (read-only): every project, version, "
                                                   "package, flag, user and token; resumable and idempotent")
    from_db.add_argument("url", metavar="URL", help="sqlite:////path/anitya.sqlite or postgresql://user@host/anitya")
    from_db.add_argument("--batch-size", type=_positive_int, default=1000, metavar="N",
                         help="projects per transaction (default 1000)")
    from_api = imports.add_parser("anitya-api", help="import what an Anitya instance's public API shows "
                                                     "(projects, versions, packages); resumable and idempotent")
    from_api.add_argument("url", metavar="BASE_URL", help="e.g. https://release-monitoring.org")
    from_api.add_argument("--rate", type=float, default=2.0, metavar="PER_SECOND",
                          help="at most this many requests per second (default 2)")
    from_api.add_argument("--items-per-page", type=_positive_int, default=250, metavar="N",
                          help="projects and packages per page (default 250, Anitya's maximum)")
    from_api.add_argument("--version-dates", action="store_true",
                          help="also ask /api/v2/versions/ of every project, for when its newest version was found "
                               "(one more request per project)")
    for command in (from_db, from_api):
        command.add_argument("--publish-events", action="store_true",
                             help="announce imported projects and mappings on the bus (default: announce nothing)")
        command.add_argument("--restart", action="store_true",
                             help="start from the beginning rather than where an interrupted run stopped")
        command.add_argument("--quiet", action="store_true", help="no progress display")
        command.add_argument("--json", action="store_true", help="the final report as JSON")
        command.set_defaults(func=_cmd_import)

    serve = sub.add_parser("serve", help="serve the HTTP API and web pages (waitress)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=5000, help="port to listen on (default 5000)")
    serve.add_argument("--no-scheduler", action="store_true", help="do not run periodic checks in this process")
    serve.add_argument("--workers", type=_positive_int, metavar="N",
                       help="processes accepting requests (default: the web_workers setting, one per core)")
    serve.set_defaults(func=_serve)

    events = sub.add_parser("events", help="the events outbox and its relay to the broker").add_subparsers(
        dest="events_command", required=True)
    publish = events.add_parser("publish", help="relay the outbox to the broker until interrupted "
                                                "(`anitrack serve` does it too; one publisher relays at a time)")
    publish.add_argument("--once", action="store_true", help="relay what is waiting, then exit (1 if the broker "
                                                             "refused)")
    publish.set_defaults(func=_cmd_events_publish)
    status = events.add_parser("status", help="events waiting for the broker, and the oldest one's age")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.set_defaults(func=_cmd_events_status)
    webhooks = sub.add_parser("webhooks", help="webhook deliveries").add_subparsers(
        dest="webhooks_command", required=True)
    relay = webhooks.add_parser("relay", help="deliver events to webhook subscriptions until interrupted "
                                              "(`anitrack serve` does it too; one relay delivers at a time)")
    relay.add_argument("--once", action="store_true", help="deliver what is due, then exit")
    relay.set_defaults(func=_cmd_webhooks_relay)
    worker = sub.add_parser("worker", help="a Celery worker that checks the projects the scheduler enqueues",
                            description="Checks batches from the work queue's broker (ANITRACK_SCALE_BROKER_URL, "
                                        "default ANITRACK_BROKER_URL: RabbitMQ or Redis) with a pool of threads; "
                                        "run any number, on any number of machines.")
    worker.add_argument("--concurrency", type=_positive_int, metavar="N",
                        help="checks in flight in this worker (default: the scale.concurrency setting, 64)")
    worker.add_argument("--name", help="the Celery node name (default anitrack@HOST:PID)")
    worker.add_argument("--loglevel", default="INFO", help="Celery's log level (default INFO)")
    worker.set_defaults(func=_cmd_worker)
    scheduler = sub.add_parser("scheduler", help="enqueue due projects for the workers (one active at a time)",
                               description="Claims due projects in the database and enqueues them in batches; "
                                           "a second scheduler stands by while the first holds the lease.")
    scheduler.add_argument("--batch-size", type=_positive_int, default=SCALE_BATCH_SIZE, metavar="N",
                           help=f"projects per task (default {SCALE_BATCH_SIZE})")
    scheduler.add_argument("--claim-seconds", type=float, default=90.0, metavar="S",
                           help="how long an enqueued project stays claimed before it is enqueued again if its "
                                "task was lost (default 90; renewed while a worker checks it)")
    scheduler.set_defaults(func=_cmd_scheduler)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except AnitrackError as exc:
        print(f"anitrack: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the database failing under any command: its cause and what to do, in one line
        from .db.failures import storage_trouble

        trouble = storage_trouble(exc)
        if trouble is None:
            raise
        print(f"anitrack: error: {trouble.message()}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
