"""The review pages (docs/design/web.md §Web): a Starlette application over one memory repository.

Every page is server-rendered HTML with plain forms (no script: the Content-Security-Policy
allows none). A decision is a POST carrying the CSRF token and a stamp of what the page showed;
it runs the domain function the CLI command calls (:mod:`agentmem.web.actions`) and answers
with a redirect to the page it came from, which says what was done (post/redirect/get). A
refusal is shown on the page in words (the domain's message and hint), with what was typed
kept; an unexpected error is a page that names its type, never a traceback. The server's log
says the method, the path and the status of each request: never a query, a form or the text of
an entry.
"""

from __future__ import annotations

import secrets
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agentmem import governance as gov
from agentmem.doctrine.model import UnknownRuleError
from agentmem.errors import (
    AgentmemError,
    ApplyConflictError,
    BusyError,
    GitError,
    GovernanceError,
    UsageError,
)
from agentmem.proposals.inbox import list_pending
from agentmem.store.repo import Repository, open_repository
from agentmem.web import actions, reads
from agentmem.web.actions import Fixes, StaleFormError, UnknownIdError
from agentmem.web.render import STATIC, environment
from agentmem.web.security import Gate, Keys

#: The largest form accepted (an entry is at most a few KiB; accept-all lists ids).
MAX_FORM_BYTES = 256 * 1024
Form = list[tuple[str, str]]


def _status(exc: AgentmemError) -> int:
    if isinstance(exc, UnknownIdError | UnknownRuleError):
        return 404
    if isinstance(exc, StaleFormError):
        return 409
    if isinstance(exc, GovernanceError):
        return 403
    if isinstance(exc, BusyError):
        return 503
    if isinstance(exc, GitError | ApplyConflictError):
        return 409
    if isinstance(exc, UsageError):
        return 400
    return 422


def _retry(exc: AgentmemError) -> bool:
    """Errors of the repository's state (another command writing, git mid-operation, a file
    changed by hand): the same form may succeed once that is over."""
    return isinstance(exc, BusyError | GitError | ApplyConflictError)


def _field(form: Form, name: str) -> str | None:
    values = [v for k, v in form if k == name]
    return values[-1] if values else None


def _int(value: str | None, name: str) -> int | None:
    if value is None or not value.strip():
        return None
    text = value.strip().lstrip("#")
    if not text.isdigit() or len(text) > 9:
        raise UsageError(f"{name}: expected a number")
    return int(text)


def _back(form: Form, default: str) -> str:
    """Where to go after a decision: a path of this site only (never another host)."""
    back = _field(form, "back") or default
    if not back.startswith("/") or back.startswith("//") or "\\" in back:
        return default
    return back


@dataclass
class Site:
    """One served repository: its root, the keys of this run, the templates, and the messages
    waiting to be shown after a redirect (by a random key, never in the URL)."""

    root: Path
    keys: Keys
    log: Callable[[str], None] = field(default=lambda line: None)
    env: Any = field(default_factory=environment)
    flashes: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)

    def repo(self) -> Repository:
        return open_repository(self.root)

    # -- rendering ------------------------------------------------------------------------------
    def render(self, request: Request, template: str, status: int = 200, **ctx: Any) -> Response:
        common: dict[str, Any] = {
            "csrf": self.keys.csrf,
            "path": request.url.path,
            "badge": None,
            "actor": None,
            "messages": [],
            "notes": [],
            "is_admin": False,
        }
        done = request.query_params.get("done")
        if done and done in self.flashes:
            common["messages"], common["notes"] = self.flashes.pop(done)
        try:
            repo = ctx.pop("repo", None) or self.repo()
            actor = repo.actor()
            pending = ctx.pop("pending", None)
            if pending is None:
                pending = list_pending(repo, actor.id)
            common["badge"] = reads.badge(repo, pending, ctx.pop("briefs", None))
            common["actor"] = actor

            common["is_admin"] = gov.may(actor.role, gov.REVIEW_QUEUE)
        except AgentmemError:
            pass  # the page itself says what is wrong; the header goes without its badge
        ctx.pop("briefs", None)
        common.update(ctx)
        html = self.env.get_template(template).render(**common)
        return HTMLResponse(html, status_code=status)

    def error(
        self, request: Request, exc: AgentmemError, form: Form | None = None, **ctx: Any
    ) -> Response:
        retry = form if form is not None and _retry(exc) else None
        return self.render(
            request,
            "error.html",
            _status(exc),
            error=exc,
            changes=getattr(exc, "changes", []),
            retry=retry,
            **ctx,
        )

    def done(self, back: str, messages: list[str], notes: list[str] | None = None) -> Response:
        key = secrets.token_urlsafe(12)
        if len(self.flashes) > 200:  # messages never read (a closed tab) do not pile up
            self.flashes.pop(next(iter(self.flashes)))
        self.flashes[key] = (messages, notes or [])
        sep = "&" if "?" in back else "?"
        return RedirectResponse(f"{back}{sep}{urlencode({'done': key})}", status_code=303)

    # -- the routes' wrapper --------------------------------------------------------------------
    def endpoint(self, handler: Callable[..., Response]) -> Callable[[Request], Any]:
        """An async Starlette endpoint around a blocking ``handler(request, form)``: the form
        read and its CSRF token checked (403, nothing run), the handler run in a worker thread,
        an ``AgentmemError`` shown in words, anything else as its type only."""

        async def run(request: Request) -> Response:
            form: Form | None = None
            if request.method == "POST":
                body = await request.body()
                if len(body) > MAX_FORM_BYTES:
                    return self.render(
                        request,
                        "error.html",
                        413,
                        error=UsageError("the form is too large"),
                        changes=[],
                        retry=None,
                    )
                form = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
                if not self.keys.csrf_ok(_field(form, "csrf")):
                    response = self.render(
                        request,
                        "error.html",
                        403,
                        error=AgentmemError(
                            "this form is not one this server showed (its CSRF token is "
                            "missing or wrong); nothing was done",
                            hint="reload the page and try again",
                        ),
                        changes=[],
                        retry=None,
                    )
                    self.log(f"{request.method} {request.url.path} 403 (csrf)")
                    return response
            response = await run_in_threadpool(self._call, handler, request, form)
            self.log(f"{request.method} {request.url.path} {response.status_code}")
            return response

        return run

    def _call(
        self, handler: Callable[..., Response], request: Request, form: Form | None
    ) -> Response:
        try:
            return handler(request, form) if form is not None else handler(request)
        except AgentmemError as exc:
            return self.error(request, exc, form)
        except Exception as exc:  # a bug: named by its type and place, never its values
            where = traceback.extract_tb(exc.__traceback__)[-1:]
            place = f"{Path(where[0].filename).name}:{where[0].lineno}" if where else "?"
            self.log(f"unexpected {type(exc).__name__} at {place}")
            return self.render(
                request,
                "error.html",
                500,
                error=AgentmemError(
                    f"unexpected error ({type(exc).__name__}); nothing more was done",
                    hint="the terminal running agentmem serve names where it happened; report it",
                ),
                changes=[],
                retry=None,
            )


# -- pages -----------------------------------------------------------------------------------------


def home(site: Site, request: Request) -> Response:
    return site.render(request, "home.html", nav="home")


def inbox(site: Site, request: Request) -> Response:
    repo = site.repo()
    view = reads.inbox_view(repo, request.query_params.get("person") or None)
    pending = [v.proposal for v in view.proposals] if view.own else None
    return site.render(
        request, "inbox.html", nav="inbox", view=view, repo=repo, pending=pending, typed={}
    )


def proposal_page(
    site: Site,
    request: Request,
    typed: dict[str, str] | None = None,
    error: AgentmemError | None = None,
) -> Response:
    repo = site.repo()
    pid = request.path_params["pid"]
    view = reads.pending_proposal(repo, pid)
    if view is None:
        actions._pending(repo, repo.actor(), pid)  # raises: decided meanwhile, or unknown
    status = _status(error) if error is not None else 200
    return site.render(
        request,
        "proposal.html",
        status,
        nav="inbox",
        pv=view,
        sections=tuple(repo.config.memory.sections),
        typed=typed or {},
        error=error,
        repo=repo,
    )


def accept(site: Site, request: Request, form: Form) -> Response:
    repo = site.repo()
    pid = request.path_params["pid"]
    editing = _field(form, "edit") == "1"
    fixes = Fixes()
    if editing:
        fixes = Fixes(
            text=_field(form, "text"),
            route=_field(form, "route"),
            section=_field(form, "section"),
            scope=_field(form, "scope"),
            target=_field(form, "target"),
        )
    modify = _field(form, "modify")
    if modify:
        fixes = Fixes(**{**fixes.__dict__, "modify": _int(modify, "modify")})
    try:
        done = actions.accept(
            repo,
            pid,
            _field(form, "stamp"),
            fixes,
            allow_foreign=_field(form, "allow_foreign") == "1",
            distinct=_field(form, "distinct") == "1",
        )
    except AgentmemError as exc:
        if editing and not isinstance(exc, StaleFormError | UnknownIdError) and not _retry(exc):
            typed = {k: v for k, v in form if k in ("text", "route", "section", "scope", "target")}
            return proposal_page(site, request, typed, exc)
        raise
    return site.done(_back(form, "/inbox"), [done.message], list(done.notes))


def reject(site: Site, request: Request, form: Form) -> Response:
    done = actions.reject(site.repo(), request.path_params["pid"])
    return site.done(_back(form, "/inbox"), [done.message])


def accept_all(site: Site, request: Request, form: Form) -> Response:
    shown = [(v.split(":", 1)[0], v.split(":", 1)[-1]) for k, v in form if k == "shown"]
    if not shown:
        raise UsageError("nothing was shown to accept", hint="the inbox lists what is pending")
    messages, notes = [], []
    for result in actions.accept_all(site.repo(), shown):
        if isinstance(result, AgentmemError):
            notes.append(f"not applied: {reads.in_words(result)}")
        else:
            messages.append(result.message)
            notes += result.notes
    return site.done("/inbox", messages, notes)


def memory(
    site: Site,
    request: Request,
    typed: dict[int, str] | None = None,
    error: AgentmemError | None = None,
    failed: int | None = None,
) -> Response:
    repo = site.repo()
    view = reads.memory_view(repo, request.query_params.get("person") or None)
    status = _status(error) if error is not None else 200
    return site.render(
        request,
        "memory.html",
        status,
        nav="memory",
        view=view,
        typed=typed or {},
        error=error,
        failed=failed,
        repo=repo,
    )


def entry_action(site: Site, request: Request, form: Form) -> Response:
    repo = site.repo()
    number = _int(request.path_params["number"], "entry") or 0
    action = request.path_params["action"]
    stamp = _field(form, "stamp") or ""
    text = _field(form, "text")
    try:
        if action == "edit":
            done = actions.edit_entry(repo, number, stamp, text or "")
        elif action == "remove":
            done = actions.remove_entry(repo, number, stamp)
        elif action == "keep":
            done = actions.keep_entry(repo, number, stamp)
        else:
            raise UnknownIdError(f"no action {action!r} on an entry (edit, remove, keep)")
    except AgentmemError as exc:
        kept = not isinstance(exc, StaleFormError | UnknownIdError) and not _retry(exc)
        if action == "edit" and kept:
            return memory(site, request, {number: text or ""}, exc, number)
        raise
    return site.done(_back(form, "/memory"), [done.message], list(done.notes))


def doctrine(site: Site, request: Request) -> Response:
    repo = site.repo()
    status = request.query_params.get("status") or None
    scope = request.query_params.get("scope") or None
    view = reads.doctrine_list(repo, status, scope)
    return site.render(
        request, "doctrine.html", nav="doctrine", view=view, repo=repo, briefs=view.found
    )


def review_queue(site: Site, request: Request) -> Response:
    repo = site.repo()
    queue = reads.review_queue(repo)
    return site.render(request, "review.html", nav="review", queue=queue, repo=repo)


def rule_page(site: Site, request: Request) -> Response:
    repo = site.repo()
    params = request.query_params
    view = reads.rule_view(
        repo,
        request.path_params["rid"],
        _int(params.get("from"), "from"),
        _int(params.get("to"), "to"),
    )
    return site.render(request, "rule.html", nav="doctrine", view=view, repo=repo)


def rule_action(site: Site, request: Request, form: Form) -> Response:
    repo = site.repo()
    rid = request.path_params["rid"]
    action = request.path_params["action"]
    version = _int(_field(form, "version"), "version")
    if version is None:
        raise UsageError("the form names no version of the rule", hint="reload the rule's page")
    status = _field(form, "status") or ""
    reason = _field(form, "reason") or None
    if action == "approve":
        done = actions.approve(repo, rid, version, _field(form, "content") or None, reason)
    elif action == "restore":
        restored = _int(_field(form, "restore"), "restore")
        if restored is None:
            raise UsageError("choose the version to restore")
        confirm = _field(form, "confirm") == "1"
        done = actions.restore(repo, rid, version, status, restored, confirm, reason)
    else:
        done = actions.transition(repo, action, rid, version, status, reason)
    return site.done(_back(form, f"/doctrine/rule/{rid}"), [done.message], list(done.notes))


def audits(site: Site, request: Request) -> Response:
    repo = site.repo()
    return site.render(
        request, "audits.html", nav="audits", view=reads.audits_view(repo), repo=repo
    )


def history(site: Site, request: Request) -> Response:
    repo = site.repo()
    person = request.query_params.get("person") or None
    return site.render(
        request,
        "history.html",
        nav="history",
        records=reads.history_view(repo, person)[:300],
        person=person,
        repo=repo,
    )


def search(site: Site, request: Request) -> Response:
    repo = site.repo()
    query = request.query_params.get("q", "")
    areas = request.query_params.get("in") or None
    hits: list[object] = []
    notes: list[str] = []
    error = None
    if query.strip():
        try:
            hits, notes = reads.search_view(repo, query, areas)
        except UsageError as exc:
            error = exc
    return site.render(
        request,
        "search.html",
        400 if error else 200,
        nav="search",
        query=query,
        areas=areas or "",
        hits=hits,
        search_notes=notes,
        error=error,
        repo=repo,
    )


def not_found(site: Site, request: Request) -> Response:
    raise UnknownIdError(
        f"no page {request.url.path}", hint="the links at the top lead to every page"
    )


def build_app(root: Path, keys: Keys, log: Callable[[str], None] | None = None) -> Any:
    """The ASGI application serving ``root``: the routes behind :class:`Gate`."""
    site = Site(root, keys, log or (lambda line: None))

    def page(handler: Callable[..., Response]) -> Callable[[Request], Any]:
        return site.endpoint(lambda request, *form: handler(site, request, *form))

    routes = [
        Route("/", page(home)),
        Route("/inbox", page(inbox)),
        Route("/inbox/accept-all", page(accept_all), methods=["POST"]),
        Route("/inbox/{pid}", page(proposal_page)),
        Route("/inbox/{pid}/accept", page(accept), methods=["POST"]),
        Route("/inbox/{pid}/reject", page(reject), methods=["POST"]),
        Route("/memory", page(memory)),
        Route("/memory/{number}/{action}", page(entry_action), methods=["POST"]),
        Route("/doctrine", page(doctrine)),
        Route("/doctrine/review", page(review_queue)),
        Route("/doctrine/rule/{rid}", page(rule_page)),
        Route("/doctrine/rule/{rid}/{action}", page(rule_action), methods=["POST"]),
        Route("/audits", page(audits)),
        Route("/history", page(history)),
        Route("/search", page(search)),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        Route("/{rest:path}", page(not_found), methods=["GET", "POST"]),
    ]
    return Gate(Starlette(routes=routes), keys, site.log)


def default_log(line: str) -> None:
    """The server's log: one line per request on stderr (method, path, status)."""
    sys.stderr.write(f"agentmem serve: {line}\n")
    sys.stderr.flush()
