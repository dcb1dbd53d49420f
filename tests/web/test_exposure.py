"""Other web pages cannot drive the table through a browser: Host, Origin, Sec-Fetch-Site and Content-Type checks."""

from __future__ import annotations

import pytest

from tests.web.conftest import JSON, require_module, table_client

require_module("starlette", "web")
require_module("httpx", "web")

import experiments.web.__main__ as main_module  # noqa: E402
from experiments.web.server import create_app, is_loopback  # noqa: E402

GAME = {"env_id": "skull_king_v0", "opponents": ["random"], "options": {"num_hands": 1}}


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "", "[::1"])
def test_a_foreign_host_is_refused(client, host):
    for response in (
        client.get("/", headers={"Host": host}),
        client.get("/api/games", headers={"Host": host}),
        client.post("/api/sessions", json=GAME, headers={"Host": host}),
    ):
        assert response.status_code == 400 and "is not this table's address" in response.json()["error"]


@pytest.mark.parametrize("host", ["localhost", "localhost:8000", "127.0.0.1:9", "[::1]:8000", "LOCALHOST"])
def test_loopback_hosts_are_served_on_any_port(client, host):
    assert client.get("/api/games", headers={"Host": host}).status_code == 200


def test_the_bound_address_and_named_hosts_are_served_and_a_wildcard_bind_takes_addresses_only():
    with table_client(create_app(bind_host="192.168.1.5", extra_hosts=["table.lan"])) as client:
        for host in ("192.168.1.5:8000", "table.lan:8000", "localhost"):
            assert client.get("/api/games", headers={"Host": host}).status_code == 200, host
        assert client.get("/api/games", headers={"Host": "10.0.0.1"}).status_code == 400
    with table_client(create_app(bind_host="0.0.0.0")) as client:
        for host, status in (("10.0.0.1:8000", 200), ("[fe80::1]:8000", 200), ("rebound.example:8000", 400)):
            assert client.get("/api/games", headers={"Host": host}).status_code == status, host


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "http://localhost:9999"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_cross_site_requests_that_change_state_are_refused(client, headers):
    state = client.post("/api/sessions", json=GAME).json()
    for method, path, body in (
        ("POST", "/api/sessions", GAME),
        ("POST", f"/api/sessions/{state['id']}/move", {"action": state["moves"][0]["action"]}),
        ("DELETE", f"/api/sessions/{state['id']}", None),
        ("POST", "/api/replays", {}),
    ):
        response = client.request(method, path, json=body, headers={**JSON, **headers})
        assert response.status_code == 403, (method, path, response.text)
    assert client.get(f"/api/sessions/{state['id']}").json()["steps"] == state["steps"]  # untouched


@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
def test_state_changes_need_a_json_body(client, content_type):
    state = client.post("/api/sessions", json=GAME).json()
    headers = {} if content_type is None else {"Content-Type": content_type}
    move = client.post(f"/api/sessions/{state['id']}/move", content=b'{"action": 0}', headers=headers)
    assert move.status_code == 415 and "application/json" in move.json()["error"]
    assert client.delete(f"/api/sessions/{state['id']}", headers=headers).status_code == 415
    assert client.get(f"/api/sessions/{state['id']}").status_code == 200


def test_the_pages_own_requests_pass(client):
    """What the page's same-origin fetch sends: Origin and Host alike, Sec-Fetch-Site same-origin, JSON."""
    page = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin", **JSON}
    assert client.get("/", headers={"Sec-Fetch-Site": "none"}).status_code == 200
    assert client.get("/api/games", headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200
    state = client.post("/api/sessions", json=GAME, headers=page)
    assert state.status_code == 200, state.text
    sid = state.json()["id"]
    move = {"action": state.json()["moves"][0]["action"]}
    assert client.post(f"/api/sessions/{sid}/move", json=move, headers=page).status_code == 200
    assert client.delete(f"/api/sessions/{sid}", headers=page).status_code == 200
    script = client.get("/static/app.js").text
    assert 'init.headers["Content-Type"] = "application/json"' in script and 'method !== "GET"' in script


def test_is_loopback():
    assert all(map(is_loopback, ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LocalHost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.5", "example.org", ""]))


def test_an_empty_host_is_refused(monkeypatch, capsys):
    served = _served(monkeypatch)
    with pytest.raises(SystemExit) as stop:
        main_module.main(["--host", ""])
    assert stop.value.code == 2 and "--host '': name the address" in capsys.readouterr().err
    assert served == []


@pytest.mark.parametrize(("host", "warns"), [("0.0.0.0", True), ("192.168.1.5", True), ("127.0.0.1", False)])
def test_a_bind_beyond_this_machine_warns_that_the_table_is_open(monkeypatch, capsys, tmp_path, host, warns):
    served = _served(monkeypatch)
    main_module.main(["--host", host, "--port", "8123", "--allow-host", "table.lan", "--data-dir", str(tmp_path)])
    # no access log: a request's address never reaches a log (the seat tokens are in headers, never in URLs)
    assert served == [
        {"host": host, "port": 8123, "log_level": "warning", "access_log": False, "timeout_graceful_shutdown": 2}
    ]
    err = capsys.readouterr().err
    assert ("warning: anyone who can reach" in err) == warns
    assert (tmp_path / "tables.sqlite3").exists()


def _served(monkeypatch) -> list[dict]:
    """The settings each server the command starts would run with (none is started)."""
    from experiments.web.serve import WebServer

    served = []
    keys = ("host", "port", "log_level", "access_log", "timeout_graceful_shutdown")
    monkeypatch.setattr(WebServer, "run", lambda self: served.append({k: getattr(self.config, k) for k in keys}))
    return served


def test_a_host_password_from_a_file_guards_new_tables(monkeypatch, capsys, tmp_path):
    from tests.web.conftest import table_client

    apps = []
    served = _served(monkeypatch)
    import experiments.web.server as server_module

    real = server_module.create_app
    monkeypatch.setattr(server_module, "create_app", lambda *a, **k: apps.append(real(*a, **k)) or apps[-1])
    (tmp_path / "pw").write_text("sesame\n")
    main_module.main(["--host", "0.0.0.0", "--password-file", str(tmp_path / "pw"), "--data-dir", str(tmp_path)])
    assert len(served) == 1 and "anyone who knows the host password" in capsys.readouterr().err
    with table_client(apps[0]) as client:
        assert client.get("/api/lobby").json()["password_required"] is True
    with pytest.raises(SystemExit):
        main_module.main(["--password-file", str(tmp_path / "none"), "--data-dir", str(tmp_path)])
    assert "--password-file" in capsys.readouterr().err
