"""A real browser plays a whole game of every game through the page and saves a screenshot.

It also replays a saved record and leaves a game midway (the page's own requests pass the
server's same-origin and JSON checks).

Debian's ``chromium`` and ``chromium-driver`` (``apt-get install chromium chromium-driver``),
driven by Selenium. Outside CI the test skips when ``/usr/bin/chromium`` is missing; in CI
(``CI=true``) it fails instead. Screenshots go to ``<game>.png`` in the folder named by
``PIRATE_ENVS_SCREENSHOTS`` (``PIRATE_ENVS_SCREENSHOTS=docs/screenshots`` refreshes the README's
pictures), else in a temporary folder, so a test run leaves the checkout as it was.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.web.conftest import IN_CI, require_module

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SCREENSHOTS = Path(os.environ.get("PIRATE_ENVS_SCREENSHOTS") or Path(tempfile.gettempdir()) / "pirate_envs_screenshots")

if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
    message = "Debian's chromium and chromium-driver are not installed: apt-get install chromium chromium-driver"
    if IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)
require_module("selenium", "web")
require_module("uvicorn", "web")

import uvicorn  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from experiments.web.host_controls import OpeningGate  # noqa: E402
from experiments.web.server import create_app  # noqa: E402
from tests.game_data import by_version, short_game_entry  # noqa: E402
from tests.web.tables_helpers import unlimited  # noqa: E402

#: Short games by version: {players, options typed into the page}, each game's ``browser_game`` in
#: ``tests/<game>/short_games.json``.
GAMES = by_version("browser_game")
MAX_CLICKS = 1500


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = free_port()
    app = create_app(gate=OpeningGate(unlimited()))  # the tests open many tables from one address
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not instance.started:
        assert time.monotonic() < deadline, "the web table did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    yield driver
    driver.quit()


def click_and_wait(driver, element) -> None:
    """Click a move control and wait until the page has drawn the answer."""
    before = render_count(driver)
    element.click()
    WebDriverWait(driver, 120).until(lambda d: render_count(d) > before)


def render_count(driver) -> int:
    """How many answers the page has drawn (``window.renderCount``)."""
    return driver.execute_script("return window.renderCount || 0")


def no_sideways_scroll(driver) -> None:
    """The page is no wider than the window."""
    wide, view = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert wide <= view, f"the page scrolls sideways: {wide} px wide in a {view} px window"


def first(driver, selector: str):
    """The first element matching ``selector``, or None."""
    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return found[0] if found else None


def click_drawn(driver, reroll: bool) -> bool:
    """Make one move by clicking the drawn table (no typing); whether it was a re-roll of dice.

    ``reroll``: where the page shows free dice (Kapern), pick two that are not skulls and re-roll them, if the
    dice allow. Otherwise the first legal card in the hand, else any legal drawn element (a
    loot card, the pile, a down card), else a move button (a bid, stop, keep), else a seat's
    button (a loot card's recipient). A card with several moves opens a menu: its first move.
    A Piratenpoker card goes into the bid being built, which is then committed.
    """
    before = render_count(driver)
    dice = driver.find_elements(By.CSS_SELECTOR, "#dice-free button.die:not(.face-skull)")
    rerolled = reroll and len(dice) >= 2 and first(driver, "#reroll") is not None
    if rerolled:
        dice[0].click()
        driver.find_elements(By.CSS_SELECTOR, "#dice-free button.die:not(.face-skull)")[1].click()
        assert len(driver.find_elements(By.CSS_SELECTOR, "#dice-free .die.selected")) == 2
        driver.find_element(By.ID, "reroll").click()
    else:
        target = (
            first(driver, "#hand button.card.legal")
            or first(driver, "#board button.legal")
            or first(driver, "#moves button.move")
            or first(driver, "#board button.move")
        )
        assert target is not None, driver.find_element(By.ID, "screen").get_attribute("textContent")
        target.click()
        if first(driver, "#commit") and render_count(driver) == before:  # a bid being built (Piratenpoker)
            assert driver.find_element(By.ID, "undo").is_enabled()  # a picked card may be taken back
            driver.find_element(By.ID, "commit").click()
        menu = first(driver, "#choice-menu button.choice")
        if menu is not None and render_count(driver) == before:
            menu.click()
    WebDriverWait(driver, 120).until(lambda d: render_count(d) > before)  # generous: a loaded machine is slow
    return rerolled


def start_game(driver, url: str, env_id: str, players: int, options: dict[str, str], seed: str = "7") -> None:
    """Open the lobby, set up a game against heuristic agents (opponents' pace: instant) and start it."""
    driver.get(url)
    wait = WebDriverWait(driver, 20)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, f"#game-select option[value='{env_id}']")))
    Select(driver.find_element(By.ID, "game-select")).select_by_value(env_id)
    Select(driver.find_element(By.ID, "players")).select_by_value(str(players))
    for select in driver.find_elements(By.CSS_SELECTOR, "select.opponent"):
        Select(select).select_by_value("heuristic")
    for key, value in options.items():
        field = driver.find_element(By.ID, f"option-{key}")
        field.clear()
        field.send_keys(value)
    driver.find_element(By.ID, "seed").send_keys(seed)
    Select(driver.find_element(By.ID, "pace")).select_by_value("0")
    driver.find_element(By.ID, "start").click()
    wait.until(ec.visibility_of_element_located((By.ID, "board")))


def write_png(png: bytes, name: str) -> None:
    """Save a screenshot as ``<name>.png`` in `SCREENSHOTS` (atomically)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / f"{name}.png"
    partial = target.with_suffix(".png.tmp")
    partial.write_bytes(png)
    os.replace(partial, target)
    assert target.read_bytes().startswith(b"\x89PNG")


# slow for their time (the drawn-table and browser whole games together take about 90 s at -n 2). They once
# flaked: a state pushed just as the page finished drawing its queue stayed undrawn; that is mended in app.js
# and the default suite's whole shared tables (test_table_browser.py) would catch it again.
@pytest.mark.slow
@pytest.mark.parametrize("env_id", list(GAMES))
def test_a_whole_game_in_the_browser(server, browser, env_id):
    players, options = GAMES[env_id]["players"], GAMES[env_id]["options"]
    browser.set_window_size(1400, 1000)
    start_game(browser, server, env_id, players, options)
    assert "you are player_0" in browser.find_element(By.ID, "screen").get_attribute("textContent")

    # a malformed typed move: the page says why, and the game goes on
    browser.find_element(By.CSS_SELECTOR, "#typing summary").click()
    browser.find_element(By.ID, "command").send_keys("zzz-not-a-move")
    click_and_wait(browser, browser.find_element(By.ID, "send"))
    error = browser.find_element(By.ID, "error")
    assert error.is_displayed() and "zzz-not-a-move" in error.text

    rerolled = False
    for _ in range(MAX_CLICKS):
        if browser.find_element(By.ID, "standings").is_displayed():
            break
        rerolled |= click_drawn(browser, reroll=not rerolled)
        assert not browser.find_element(By.ID, "error").is_displayed(), browser.find_element(By.ID, "error").text
    standings = browser.find_element(By.ID, "standings")
    assert standings.is_displayed() and "Game over" in standings.text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#final-standings li")) == players
    log = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert any(line.startswith("game over") for line in log)
    reroll = short_game_entry(env_id, "reroll_log_line")  # where the game re-rolls: tests/<game>/
    if reroll:
        assert rerolled and any(line.startswith(reroll) for line in log)
    no_sideways_scroll(browser)
    write_png(browser.get_screenshot_as_png(), env_id.removesuffix("_v0"))


def test_replay_of_a_saved_game_in_the_browser(server, browser, tmp_path):
    """Play a short game through the API, load its record in the page and step through it."""
    import json
    import urllib.request

    def call(path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(server + path, data=data, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=20) as answer:
            return json.load(answer)

    state = call(
        "/api/sessions", {"env_id": "skull_king_v0", "opponents": ["heuristic"], "seed": 1, "options": {"num_hands": 1}}
    )
    while not state["done"]:
        state = call(f"/api/sessions/{state['id']}/move", {"action": state["moves"][0]["action"]})
    record = call(f"/api/sessions/{state['id']}/record")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    total = len(record["actions"])

    browser.get(server)
    WebDriverWait(browser, 20).until(ec.presence_of_element_located((By.CSS_SELECTOR, "#game-select option")))
    browser.find_element(By.ID, "record-file").send_keys(str(path))
    browser.find_element(By.ID, "load-replay").click()
    step = WebDriverWait(browser, 20).until(ec.visibility_of_element_located((By.ID, "step")))
    assert step.text == f"step 0 of {total}"  # a replay opens at the deal
    assert browser.find_element(By.ID, "last-move").text == "the deal"
    browser.find_element(By.ID, "play").click()  # play runs it to the end, then pauses
    WebDriverWait(browser, 60).until(lambda d: d.find_element(By.ID, "step").text == f"step {total} of {total}")
    WebDriverWait(browser, 20).until(lambda d: d.find_element(By.ID, "play").get_attribute("aria-pressed") == "false")
    click_and_wait(browser, browser.find_element(By.ID, "first"))
    assert browser.find_element(By.ID, "step").text == f"step 0 of {total}"
    click_and_wait(browser, browser.find_element(By.ID, "next"))
    assert browser.find_element(By.ID, "step").text == f"step 1 of {total}"
    assert browser.find_element(By.ID, "last-move").text.startswith("last move: bid")
    assert "Skull King: hand 1 of 1" in browser.find_element(By.ID, "screen").get_attribute("textContent")


def test_leaving_a_table_returns_to_the_lobby_which_lists_it_and_its_record_waits_for_the_end(server, browser):
    """The page's requests pass the server's checks (JSON content type, same origin); no record link mid-game."""
    import urllib.error
    import urllib.request

    browser.get(server)
    wait = WebDriverWait(browser, 20)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#game-select option[value='skull_king_v0']")))
    browser.find_element(By.ID, "seed").send_keys("5")
    browser.find_element(By.ID, "start").click()
    wait.until(ec.visibility_of_element_located((By.ID, "board")))
    tid = browser.execute_script("return session.id")
    assert not browser.find_element(By.ID, "download").is_displayed()
    assert "The host chose this deal's seed" in browser.find_element(By.ID, "seed-note").text
    with pytest.raises(urllib.error.HTTPError) as running:
        urllib.request.urlopen(f"{server}/api/tables/{tid}/record", timeout=20).close()
    assert running.value.code == 409
    browser.find_element(By.ID, "leave").click()
    wait.until(ec.visibility_of_element_located((By.ID, "setup")))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#open-tables a[href='#table={tid}']"))
