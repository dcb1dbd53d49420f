"""A table in the browser: people and agents at one game, each person at their own seat by a secret link,
live by server push, kept across restarts; read the event log, replay finished games.

    python -m experiments.web                       # http://127.0.0.1:8000
    python -m experiments.web --agents-dir my_agents --port 8080 --data-dir tables

Needs the ``web`` extra (Starlette and uvicorn). The page is plain HTML, CSS and JavaScript
shipped in ``experiments/web/static`` (no CDN, no build step); the API is in
`experiments.web.server` and `experiments.web.table_api`, the games in `experiments.web.sessions`,
the shared tables in `experiments.web.tables`, their storage in `experiments.web.storage`.
"""
