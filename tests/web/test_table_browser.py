"""Shared tables in real browsers: two people at one table, a double click, a reload, a server restart,
a spectator, and the phone layout at six players (skips as ``test_browser`` does without chromium)."""

from __future__ import annotations

import re
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.game_data import by_version
from tests.web.tables_helpers import TableServer
from tests.web.test_browser import (  # noqa: F401  (browser: a fixture)
    CHROMEDRIVER,
    CHROMIUM,
    browser,
    click_drawn,
    no_sideways_scroll,
    render_count,
    write_png,
)

WAIT_S = 120  # generous: the agents take milliseconds, a loaded machine much longer
MAX_MOVES = 600


@pytest.fixture(scope="module")
def table_server(tmp_path_factory):
    server = TableServer(tmp_path_factory.mktemp("tables"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def second_browser():
    """Another browser: another person (its own profile, nothing shared with the first)."""
    import tempfile

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--window-size=1400,1000",
        f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-profile-')}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    yield driver
    driver.quit()


def open_table(
    driver, url: str, env_id: str, seats: list[str], options: dict[str, str], width: int = 1400, name: str = ""
) -> None:
    """Open a table from the lobby: seat 0 is yours (under ``name``), then ``seats`` (``person``: an invite, else an
    agent)."""
    driver.set_window_size(width, 1000)
    driver.get(url)
    WebDriverWait(driver, 20).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, f"#game-select option[value='{env_id}']"))
    )
    driver.find_element(By.ID, "your-name").clear()
    driver.find_element(By.ID, "your-name").send_keys(name)
    Select(driver.find_element(By.ID, "game-select")).select_by_value(env_id)
    Select(driver.find_element(By.ID, "players")).select_by_value(str(len(seats) + 1))
    for select, kind in zip(driver.find_elements(By.CSS_SELECTOR, "select.opponent"), seats):
        Select(select).select_by_value(kind)
    for key, value in options.items():
        field = driver.find_element(By.ID, f"option-{key}")
        field.clear()
        field.send_keys(value)
    Select(driver.find_element(By.ID, "pace")).select_by_value("0")
    driver.find_element(By.ID, "start").click()
    WebDriverWait(driver, 20).until(ec.visibility_of_element_located((By.ID, "board")))


def page(driver, what: str):
    return driver.execute_script(f"return session && session.{what}")


def settled(driver) -> bool:
    """The page shows a state where nobody is thinking and no move is on its way."""
    return driver.execute_script(
        "return Boolean(session) && !busy && !draining && queue.length === 0 && "
        "(session.thinking === null || session.thinking === undefined)"
    )


def play_one(driver) -> None:
    """Wait for this page's turn, make one move by clicking the drawn table (as ``click_drawn``: a card, else a
    drawn element, else a button; a menu's first move), then wait until the page shows the table settled after it.
    """
    WebDriverWait(driver, WAIT_S).until(lambda d: settled(d) and (page(d, "your_turn") or page(d, "done")))
    if page(driver, "done"):
        return
    version = page(driver, "version")
    target = None
    for selector in ("#hand button.card.legal", "#board button.legal", "#moves button.move", "#board button.move"):
        found = driver.find_elements(By.CSS_SELECTOR, selector)
        if found:
            target = found[0]
            break
    assert target is not None, driver.find_element(By.ID, "screen").get_attribute("textContent")
    target.click()
    menu = driver.find_elements(By.CSS_SELECTOR, "#choice-menu button.choice")
    if menu:
        menu[0].click()
    WebDriverWait(driver, WAIT_S).until(
        lambda d: (settled(d) and page(d, "version") > version) or d.find_element(By.ID, "error").is_displayed()
    )
    assert not driver.find_element(By.ID, "error").is_displayed(), driver.find_element(By.ID, "error").text


def hand_names(driver) -> set[str]:
    return {c.get_attribute("title").split(":")[0] for c in driver.find_elements(By.CSS_SELECTOR, "#hand .card")}


def test_two_people_and_two_agents_finish_a_game_from_two_browsers(table_server, browser, second_browser):  # noqa: F811
    url = table_server.url
    open_table(browser, url, "skull_king_v0", ["person", "heuristic", "heuristic"], {"num_hands": "2"})
    links = WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#invite-links input"))
    invite = links[0].get_attribute("value")
    write_png(browser.get_screenshot_as_png(), "table-invites")
    assert "&seat=" in invite and links[-1].get_attribute("value").endswith(
        browser.execute_script("return session.id")
    )  # the last link is the spectators'
    second_browser.set_window_size(1400, 1000)
    second_browser.get(invite)
    for driver, seat in ((browser, 0), (second_browser, 1)):
        WebDriverWait(driver, WAIT_S).until(lambda d: page(d, "table_status") == "playing" and settled(d))
        assert page(driver, "seat") == seat and f"you are player_{seat}" in driver.find_element(By.ID, "title").text
    mine, theirs = hand_names(browser), hand_names(second_browser)
    assert mine and theirs
    for driver, other in ((browser, theirs), (second_browser, mine)):
        board = driver.find_element(By.ID, "board").get_attribute("innerHTML")
        shown = set(re.findall(r"(?:yellow|red|blue|black)-\d+", board))
        assert not shown & {n for n in other if re.fullmatch(r"(?:yellow|red|blue|black)-\d+", n)}
    crossed = False
    for _ in range(MAX_MOVES):
        WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and settled(second_browser))
        if page(browser, "done") and page(second_browser, "done"):
            break
        mover = browser if page(browser, "your_turn") else second_browser
        watcher = second_browser if mover is browser else browser
        if not page(mover, "your_turn"):
            time.sleep(0.05)  # the other page has not drawn the last push yet
            continue
        seen = len(watcher.find_elements(By.CSS_SELECTOR, "#log li"))
        play_one(mover)
        # the other person's page follows without a click or a reload
        WebDriverWait(watcher, WAIT_S).until(lambda d, n=seen: len(d.find_elements(By.CSS_SELECTOR, "#log li")) > n)
        if not crossed:
            write_png(second_browser.get_screenshot_as_png(), "table-two-people")
        crossed = True
    for driver in (browser, second_browser):
        WebDriverWait(driver, WAIT_S).until(lambda d: d.find_element(By.ID, "standings").is_displayed())
        assert len(driver.find_elements(By.CSS_SELECTOR, "#final-standings li")) == 4
    assert crossed


def test_a_double_click_plays_once(table_server, browser):  # noqa: F811
    """Kapern: a double click on "Re-roll selected dice" re-rolls once (the table locks; the version guards)."""
    for _ in range(20):  # a roll with two free dice that are not skulls
        open_table(browser, table_server.url, "piraten_kapern_v0", ["heuristic"], {"target_score": "1000"})
        WebDriverWait(browser, WAIT_S).until(settled)
        dice = browser.find_elements(By.CSS_SELECTOR, "#dice-free button.die:not(.face-skull)")
        if len(dice) >= 2 and page(browser, "your_turn"):
            break
    dice[0].click()
    browser.find_elements(By.CSS_SELECTOR, "#dice-free button.die:not(.face-skull)")[1].click()
    version = page(browser, "version")
    ActionChains(browser).double_click(browser.find_element(By.ID, "reroll")).perform()
    WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and page(d, "version") > version)
    time.sleep(0.5)  # a second request, were one sent, has been answered by now
    log = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert sum(line.startswith("player_0 re-rolls") for line in log) == 1, log
    assert not browser.find_element(By.ID, "error").is_displayed()


def test_a_reload_and_a_server_restart_return_to_the_game(tmp_path, browser):  # noqa: F811
    server = TableServer(tmp_path)
    server.start()
    try:
        open_table(browser, server.url, "skull_king_v0", ["heuristic", "random"], {"num_hands": "3"})
        WebDriverWait(browser, WAIT_S).until(settled)
        for _ in range(2):
            play_one(browser)
        WebDriverWait(browser, WAIT_S).until(settled)
        address, version, hand = browser.current_url, page(browser, "version"), hand_names(browser)
        assert "#table=" in address and "&seat=" in address
        browser.refresh()
        WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and page(d, "version") == version)
        assert browser.current_url == address and hand_names(browser) == hand
        server.stop()
        # while the server is away the page says so, and never "your turn"
        WebDriverWait(browser, 30).until(lambda d: "reconnecting" in d.find_element(By.ID, "status").text)
        assert "your turn" not in browser.find_element(By.ID, "status").text
        server.start()  # a new server process state: only the data folder carries the table
        WebDriverWait(browser, WAIT_S).until(
            lambda d: settled(d) and "reconnecting" not in d.find_element(By.ID, "status").text
        )
        play_one(browser)  # the page's stream reconnected; the game goes on
        assert page(browser, "version") > version
        for _ in range(MAX_MOVES):
            if browser.find_element(By.ID, "standings").is_displayed():
                break
            play_one(browser)
        assert "Game over" in browser.find_element(By.ID, "standings").text
    finally:
        server.stop()


def test_a_spectator_sees_no_hidden_card(table_server, browser, second_browser):  # noqa: F811
    open_table(browser, table_server.url, "skull_king_v0", ["heuristic", "heuristic"], {"num_hands": "3"})
    WebDriverWait(browser, WAIT_S).until(settled)
    tid = page(browser, "id")
    second_browser.get(f"{table_server.url}/#table={tid}")
    WebDriverWait(second_browser, WAIT_S).until(lambda d: page(d, "id") == tid and settled(d))
    assert "watching" in second_browser.find_element(By.ID, "title").text
    assert not second_browser.find_elements(By.CSS_SELECTOR, "#hand .card, .replay-hand .card, #board button")
    assert len(second_browser.find_elements(By.CSS_SELECTOR, "#seats .seat")) == 3
    board = second_browser.find_element(By.ID, "board").get_attribute("innerHTML")
    for name in hand_names(browser):
        assert name not in board
    # the lobby lists the table for spectators
    second_browser.get(table_server.url)
    WebDriverWait(second_browser, 20).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, f"#open-tables a[href='#table={tid}']")
    )


#: Phone windows (width, height) and the tables tried on them: (game, agents besides you, options), each game's
#: ``phone_tables`` in ``tests/<game>/short_games.json``.
PHONES = ((390, 844), (360, 740))
PHONE_TABLES = [
    (env_id, table["agents"], table["options"])
    for env_id, tables in by_version("phone_tables").items()
    for table in tables
]


@pytest.mark.parametrize(("env_id", "agents", "options"), PHONE_TABLES)
def test_on_a_phone_the_legal_moves_are_on_screen_at_the_top_of_the_page(
    table_server,
    browser,  # noqa: F811
    env_id,
    agents,
    options,
):
    """The dock (hand and move buttons) stays pinned to the bottom of the window, scrolled to the top, at 390 and
    360 px, at the smallest and the largest table."""
    width, height = PHONES[0]
    open_table(browser, table_server.url, env_id, ["heuristic"] * agents, options, width=width)
    WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and page(d, "your_turn"))
    for width, height in PHONES:
        browser.set_window_size(width, height)
        browser.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.2)  # the resize and the scroll are laid out
        view = browser.execute_script("return window.innerHeight")
        controls = browser.find_elements(By.CSS_SELECTOR, "#dock button.legal, #dock #moves button")
        assert controls, browser.find_element(By.ID, "screen").get_attribute("textContent")
        for element in controls:
            top, bottom = browser.execute_script(
                "const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom]", element
            )
            assert top >= 0 and bottom <= view, (width, element.text, top, bottom, view)
        no_sideways_scroll(browser)
    write_png(browser.get_screenshot_as_png(), f"{env_id}-{agents + 1}p-{width}px")
    for cell in browser.find_elements(By.CSS_SELECTOR, "#scores td.num"):  # numbers never break
        assert cell.value_of_css_property("white-space") == "nowrap"


def test_the_table_reads_like_a_game(table_server, browser):  # noqa: F811
    """The rules' Markdown is rendered; the hand you bid on is bright; a completed trick shows in full with
    its players' names; a score sheet per hand; scores never wrap."""
    browser.set_window_size(1400, 1000)
    browser.get(table_server.url)
    WebDriverWait(browser, 20).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, "#game-select option[value='piratenpoker_v0']"))
    )
    Select(browser.find_element(By.ID, "game-select")).select_by_value("piratenpoker_v0")
    rules = browser.find_element(By.ID, "lobby-rules-text")
    assert rules.find_elements(By.TAG_NAME, "em") and "*" not in rules.text  # "*game*" is emphasised
    open_table(browser, table_server.url, "skull_king_v0", ["heuristic", "heuristic"], {"num_hands": "2"})
    WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and page(d, "your_turn"))
    assert page(browser, "table.phase") == "bid"
    assert browser.find_elements(By.CSS_SELECTOR, "#hand .card")
    assert not browser.find_elements(By.CSS_SELECTOR, "#hand .card.dimmed")  # bidding on it: never dimmed
    for _ in range(MAX_MOVES):  # play until a trick has been won
        if browser.find_elements(By.CSS_SELECTOR, "#last-trick") or page(browser, "done"):
            break
        play_one(browser)
        WebDriverWait(browser, WAIT_S).until(settled)
    trick = browser.find_element(By.ID, "last-trick")
    names = [caption.text for caption in trick.find_elements(By.TAG_NAME, "figcaption")]
    assert sorted(names) == ["player_0", "player_1", "player_2"] and "trick won by" in trick.text
    assert len(trick.find_elements(By.CSS_SELECTOR, ".card:not(.mini)")) == 3  # full size, not a strip
    sheet = browser.find_element(By.ID, "score-sheet")
    rows = sheet.find_elements(By.CSS_SELECTOR, "tr")
    assert sheet.is_displayed() and len(rows) >= 2  # the header, then a row per hand scored
    assert all(len(row.find_elements(By.CSS_SELECTOR, "td, th")) == 4 for row in rows)  # the hand, 3 seats
    for cell in browser.find_elements(By.CSS_SELECTOR, "#scores td.num, #score-sheet td.num"):
        assert cell.value_of_css_property("white-space") == "nowrap"


def test_a_played_card_leaves_the_hand_at_once_and_the_table_locks_until_the_answer(table_server, browser):  # noqa: F811
    open_table(browser, table_server.url, "skull_king_v0", ["heuristic", "heuristic"], {"num_hands": "3"})
    for _ in range(MAX_MOVES):  # to a turn where a card is played
        WebDriverWait(browser, WAIT_S).until(settled)
        single = browser.find_elements(By.CSS_SELECTOR, "#hand button.card.legal:not([data-actions*=','])")
        if page(browser, "your_turn") and page(browser, "table.phase") == "play" and single:
            break
        play_one(browser)
    # the server's answer to a move comes 1.5 s late
    browser.execute_script(
        "window.realFetch = window.realFetch || window.fetch;"
        "window.fetch = (url, init) => String(url).endsWith('/move')"
        " ? new Promise((ok) => setTimeout(ok, 1500)).then(() => window.realFetch(url, init))"
        " : window.realFetch(url, init);"
    )
    try:
        held = len(browser.find_elements(By.CSS_SELECTOR, "#hand .card"))
        version = page(browser, "version")
        browser.find_element(By.CSS_SELECTOR, "#hand button.card.legal:not([data-actions*=','])").click()
        shown = browser.execute_script(
            "return [document.querySelectorAll('#hand .card:not(.leaving)').length,"
            " document.getElementById('board').classList.contains('locked'),"
            " [...document.querySelectorAll('#board button')].every((b) => b.disabled)]"
        )
        assert shown == [held - 1, True, True]  # gone from the hand, nothing clickable, before any answer
        WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and page(d, "version") > version)
        assert not browser.find_element(By.ID, "board").get_attribute("class")
    finally:
        browser.execute_script("window.fetch = window.realFetch")


def test_a_finished_table_replays_from_the_lobby_at_the_deal(table_server, browser):  # noqa: F811
    open_table(browser, table_server.url, "skull_king_v0", ["random"], {"num_hands": "1"})
    for _ in range(MAX_MOVES):
        WebDriverWait(browser, WAIT_S).until(settled)
        if page(browser, "done"):
            break
        play_one(browser)
    tid = page(browser, "id")
    browser.find_element(By.ID, "leave").click()
    link = WebDriverWait(browser, 20).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, f"#finished-tables a[href='#replay={tid}']")
    )
    link[0].click()
    step = WebDriverWait(browser, 20).until(ec.visibility_of_element_located((By.ID, "step")))
    assert step.text.startswith("step 0 of ") and browser.current_url.endswith(f"#replay={tid}")
    assert browser.find_element(By.ID, "play").is_displayed()


def test_the_piratenpoker_loot_you_bid_for_is_never_dimmed(table_server, browser):  # noqa: F811
    """While you bid, the loot on offer is what you decide on: drawn bright, not as a card you cannot play."""
    open_table(browser, table_server.url, "piratenpoker_v0", ["heuristic", "heuristic"], {"loot_fronts": "5,8"})
    WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and page(d, "your_turn"))
    assert browser.find_elements(By.CSS_SELECTOR, "#hand button.card.legal")  # a bid is being built from the hand
    offered = browser.find_elements(By.CSS_SELECTOR, ".offer .card:not(.empty-slot)")
    assert offered, "no loot on offer"
    assert not [card.get_attribute("title") for card in offered if "dimmed" in card.get_attribute("class")]


#: A long name without a space (the longest the lobby takes).
LONG_NAME = "Bartholomew_Longbeard_XV"


def test_the_small_things_of_a_skull_king_table_at_1280_px(table_server, browser):  # noqa: F811
    """Long names stay in the scores column, event numbers of four digits show whole, a special card of the last
    trick is drawn with its symbol, "no trick yet" never shows beside the last trick, and the game-over screen
    says so (not "playing")."""
    open_table(browser, table_server.url, "skull_king_v0", ["random"], {"num_hands": "2"}, width=1280, name=LONG_NAME)
    WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and page(d, "your_turn"))
    seat_address = browser.current_url
    browser.execute_script("location.hash = location.hash.replace(/&seat=.*/, '')")  # watch: your name is shown
    WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and page(d, "seat") is None)
    aside = browser.find_element(By.CSS_SELECTOR, "aside")
    wide, room = browser.execute_script("return [arguments[0].scrollWidth, arguments[0].clientWidth]", aside)
    assert LONG_NAME in aside.text and wide <= room, f"the scores column overflows: {wide} px in {room} px"
    no_sideways_scroll(browser)
    browser.get(seat_address)
    WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and page(d, "your_turn"))
    pirate = browser.execute_script("return drawCard(cardFromName('pirate')).textContent")
    assert "\u2620" in pirate and not pirate.startswith("pi"), pirate
    # numbers of four digits fit beside the event log (drawn with 1,200 events, then the table's own again)
    room, number = browser.execute_script(
        """const log = document.getElementById("log");
        renderLog({ events: Array.from({ length: 1200 }, (_, i) => ({ kind: "note", text: `event ${i}` })) });
        const style = getComputedStyle(log), context = document.createElement("canvas").getContext("2d");
        context.font = `${style.fontSize} ${style.fontFamily}`;
        const fit = [parseFloat(style.paddingLeft), context.measureText("1200. ").width];
        renderLog(session);
        return fit;"""
    )
    assert number <= room, f"the event numbers need {number:.0f} px, have {room:.0f}"
    for _ in range(MAX_MOVES):
        if page(browser, "done"):
            break
        if browser.find_elements(By.ID, "last-trick"):
            assert "no trick yet" not in browser.find_element(By.ID, "center").text
        play_one(browser)
        WebDriverWait(browser, WAIT_S).until(settled)
    round_line = browser.find_element(By.CSS_SELECTOR, "#center .round").text
    assert "game over" in round_line and "playing" not in round_line, round_line


def test_during_an_agents_move_the_banner_names_the_seat_the_marker_shows(table_server, browser):  # noqa: F811
    open_table(browser, table_server.url, "skull_king_v0", ["heuristic", "heuristic"], {"num_hands": "2"})
    WebDriverWait(browser, WAIT_S).until(lambda d: settled(d) and page(d, "your_turn"))
    Select(browser.find_element(By.ID, "pace")).select_by_value("900")  # each agent's move is shown for 0.9 s
    browser.execute_script(
        """window.samples = [];
        window.sampler = setInterval(() => {
          const marker = document.querySelector("#board .badge.turn");
          if (!document.querySelector("#board .acting") || !marker) { return; }
          window.samples.push([document.getElementById("status").textContent,
            Number(marker.closest("[id^=seat-]").id.slice(5))]);
        }, 30);"""
    )
    play_one(browser)
    samples = browser.execute_script("clearInterval(window.sampler); return window.samples")
    assert samples, "no agent's move was played out"
    for banner, marked in samples:
        expected = "your turn" if marked == 0 else f"player_{marked}"
        assert expected in banner, (banner, marked)
