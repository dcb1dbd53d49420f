"""A real browser plays whole games on the drawn table by clicking cards, dice, loot, seats and buttons (no typing).

Every game at its smallest and largest table size, at 1400 px and 390 px wide; the page never
scrolls sideways. The default run plays one game per title (its smallest table, 1400 px); the
other sizes and widths are marked ``slow``. Screenshots go to ``<game>-<players>p-<width>.png`` in
the folder of ``test_browser`` (``PIRATE_ENVS_SCREENSHOTS=docs/screenshots`` refreshes the docs'
pictures). Skips (or fails in CI) as ``test_browser`` does without chromium.
"""

from __future__ import annotations

import os

import pytest
from selenium.common.exceptions import NoSuchElementException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

import pirate_envs
from tests.web.test_browser import SCREENSHOTS, browser, server  # noqa: F401  (fixtures)

#: Options typed into the lobby for short games.
OPTIONS = {
    "skull_king_v0": {"num_hands": "2"},
    "piraten_kapern_v0": {"target_score": "1000"},
    "piratenpoker_v0": {"loot_fronts": "5,8"},
    "lucky_pirate_v0": {},
}
#: Most clicks a game may take (the longest, Lucky Pirate at two players, takes about 100).
MAX_CLICKS = 1500
WIDTHS = (1400, 390)


def cases() -> list:
    out = []
    for env_id in pirate_envs.ENV_IDS:
        counts = pirate_envs.game_spec(env_id).player_counts
        for players in sorted({min(counts), max(counts)}):
            for width in WIDTHS:
                fast = players == min(counts) and width == WIDTHS[0]
                marks = () if fast else (pytest.mark.slow,)
                out.append(pytest.param(env_id, players, width, marks=marks, id=f"{env_id}-{players}p-{width}px"))
    return out


def render_count(driver) -> int:
    return driver.execute_script("return window.renderCount || 0")


def no_sideways_scroll(driver) -> None:
    wide, view = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert wide <= view, f"the page scrolls sideways: {wide} px wide in a {view} px window"


def start(driver, url: str, env_id: str, players: int, width: int) -> None:
    driver.set_window_size(width, 1000)
    driver.get(url)
    wait = WebDriverWait(driver, 20)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, f"#game-select option[value='{env_id}']")))
    Select(driver.find_element(By.ID, "game-select")).select_by_value(env_id)
    player_choices = [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "players")).options]
    counts = pirate_envs.game_spec(env_id).player_counts
    assert player_choices == [str(n) for n in counts]  # every size the game allows
    Select(driver.find_element(By.ID, "players")).select_by_value(str(players))
    opponents = driver.find_elements(By.CSS_SELECTOR, "select.opponent")
    assert len(opponents) == players - 1
    for select in opponents:
        Select(select).select_by_value("heuristic")
    for key, value in OPTIONS[env_id].items():
        field = driver.find_element(By.ID, f"option-{key}")
        field.clear()
        field.send_keys(value)
    assert driver.find_element(By.ID, "lobby-rules-text").text  # the rules of the game chosen
    driver.find_element(By.ID, "seed").send_keys("7")
    Select(driver.find_element(By.ID, "pace")).select_by_value("0")
    no_sideways_scroll(driver)
    driver.find_element(By.ID, "start").click()
    wait.until(ec.visibility_of_element_located((By.ID, "board")))


def first(driver, selector: str):
    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return found[0] if found else None


def click_drawn(driver, env_id: str, rerolled: bool) -> bool:
    """Make one move by clicking drawn elements; whether it was a Kapern re-roll."""
    before = render_count(driver)
    dice = driver.find_elements(By.CSS_SELECTOR, "#dice-free button.die:not(.face-skull)")
    if env_id == "piraten_kapern_v0" and not rerolled and len(dice) >= 2 and first(driver, "#reroll"):
        dice[0].click()
        driver.find_elements(By.CSS_SELECTOR, "#dice-free button.die:not(.face-skull)")[1].click()
        assert len(driver.find_elements(By.CSS_SELECTOR, "#dice-free .die.selected")) == 2
        driver.find_element(By.ID, "reroll").click()
        move = True
    else:
        move = False
        target = (
            first(driver, "#hand button.card.legal")
            or first(driver, "#board button.legal")
            or first(driver, "#moves button.move")
            or first(driver, "#board button.move")
        )
        assert target is not None, driver.find_element(By.ID, "screen").get_attribute("textContent")
        target.click()
        if env_id == "piratenpoker_v0" and first(driver, "#commit") and render_count(driver) == before:
            undo = driver.find_element(By.ID, "undo")
            assert undo.is_enabled()  # a card picked into the bid may be taken back before the commit
            driver.find_element(By.ID, "commit").click()
        menu = first(driver, "#choice-menu button.choice")
        if menu is not None and render_count(driver) == before:
            menu.click()
    WebDriverWait(driver, 30).until(lambda d: render_count(d) > before)
    return move


@pytest.mark.parametrize(("env_id", "players", "width"), cases())
def test_a_whole_game_by_clicking_the_drawn_table(server, browser, env_id, players, width):  # noqa: F811
    start(browser, server, env_id, players, width)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#seats .seat")) == players - 1
    assert browser.find_element(By.CSS_SELECTOR, "#me .seat")
    rerolled = False
    shots = {}
    for clicks in range(MAX_CLICKS):
        if browser.find_element(By.ID, "standings").is_displayed():
            break
        if clicks == 3:
            no_sideways_scroll(browser)
            shots["play"] = browser.get_screenshot_as_png()
        rerolled |= click_drawn(browser, env_id, rerolled)
        error = browser.find_element(By.ID, "error")
        assert not error.is_displayed(), error.text
    else:
        raise AssertionError(f"{env_id}: not over after {MAX_CLICKS} clicks")
    no_sideways_scroll(browser)
    standings = browser.find_element(By.ID, "standings")
    assert "Game over" in standings.text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#final-standings li")) == players
    log = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert any(line.startswith("game over") for line in log)
    if env_id == "piraten_kapern_v0":
        assert rerolled and any(line.startswith("player_0 re-rolls") for line in log)
    shots["end"] = browser.get_screenshot_as_png()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for stage, png in shots.items():
        target = SCREENSHOTS / f"{env_id.removesuffix('_v0')}-{players}p-{width}px-{stage}.png"
        partial = target.with_suffix(".png.tmp")
        partial.write_bytes(png)
        os.replace(partial, target)
        assert target.read_bytes().startswith(b"\x89PNG")


def test_cards_carry_names_and_rules_and_the_keyboard_plays_them(server, browser):  # noqa: F811
    """Skull King: every drawn card names itself and its rule; Tab and Enter play a legal card or bid."""
    start(browser, server, "skull_king_v0", 2, 1400)
    cards = browser.find_elements(By.CSS_SELECTOR, "#hand .card")
    assert cards and all(c.get_attribute("aria-label") and ": " in c.get_attribute("title") for c in cards)
    bid = browser.find_element(By.CSS_SELECTOR, "#moves button.move")
    before = render_count(browser)
    browser.execute_script("arguments[0].focus()", bid)
    bid.send_keys("\n")  # Enter on the focused button
    WebDriverWait(browser, 20).until(lambda d: render_count(d) > before)
    assert browser.find_element(By.ID, "rules-button").get_attribute("aria-expanded") == "false"
    browser.find_element(By.ID, "rules-button").click()
    assert "Skull King" in browser.find_element(By.ID, "rules-text").text or browser.find_element(
        By.ID, "rules-text").text
    with pytest.raises(NoSuchElementException):
        browser.find_element(By.CSS_SELECTOR, "#hand .card.legal.dimmed")
