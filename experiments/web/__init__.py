"""A table in the browser: play the agents by clicking, read the event log, replay saved games.

    python -m experiments.web                       # http://127.0.0.1:8000
    python -m experiments.web --agents-dir my_agents --port 8080

Needs the ``web`` extra (Starlette and uvicorn). The page is plain HTML, CSS and JavaScript
shipped in ``experiments/web/static`` (no CDN, no build step); the API is in
`experiments.web.server`, the games in `experiments.web.sessions`.
"""
