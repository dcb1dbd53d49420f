"""Every answer of the table carries the security headers: CSP (no framing), no sniffing, no referrer."""

from __future__ import annotations

import pytest

from tests.web.conftest import require_module

require_module("starlette", "web")
require_module("httpx", "web")


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),
        ("GET", "/static/app.js", 200),
        ("GET", "/api/games", 200),
        ("GET", "/api/lobby", 200),
        ("GET", "/api/tables/nope", 404),
        ("GET", "/api/sessions/nope", 404),
        ("POST", "/api/tables", 400),
    ],
)
def test_every_answer_carries_the_security_headers(client, method, path, status):
    answer = client.request(method, path, json={} if method == "POST" else None)
    assert answer.status_code == status
    csp = answer.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp and "unsafe" not in csp
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["x-frame-options"] == "DENY"
    assert answer.headers["referrer-policy"] == "no-referrer"


def test_a_foreign_host_refusal_carries_them_too(client):
    answer = client.get("/", headers={"Host": "evil.example"})
    assert answer.status_code == 400 and "frame-ancestors 'none'" in answer.headers["content-security-policy"]
