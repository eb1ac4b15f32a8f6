"""``agentmem serve`` (docs/design/web.md §Web): the review pages, a second door into the same
repository, the same governance functions and the same commits as the command line.

- :mod:`agentmem.web.reads` — every read the pages make (the one module to change when the
  served view of what a reader may see moves);
- :mod:`agentmem.web.actions` — every decision, each through the domain function the CLI
  command calls;
- :mod:`agentmem.web.security` — the token in the URL, the session cookie, CSRF, the host check
  and the response headers;
- :mod:`agentmem.web.app` — the Starlette application: routes, forms, templates, errors in
  words;
- :mod:`agentmem.web.server` — uvicorn on 127.0.0.1.

Starlette, uvicorn and Jinja2 are imported only in this package, which ``agentmem.cli.serve``
loads when the command runs.
"""
