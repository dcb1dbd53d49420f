"""The page's Hint button asks the chosen agent and shows its advice in words, after the bid cards staged on the page
(a real browser; skips as ``test_browser``)."""

from __future__ import annotations

import json
import re
from urllib.request import Request, urlopen

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.web.test_browser import browser, server  # noqa: F401  (fixtures)
from tests.web.test_table_browser import WAIT_S, open_table, page, play_one, settled, table_server  # noqa: F401


def test_hint_button_shows_the_chosen_agents_moves(server, browser):  # noqa: F811
    browser.get(server)
    wait = WebDriverWait(browser, 20)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#game-select option[value='piraten_kapern_v0']")))
    Select(browser.find_element(By.ID, "game-select")).select_by_value("piraten_kapern_v0")
    browser.find_element(By.ID, "seed").send_keys("5")
    browser.find_element(By.ID, "start").click()
    wait.until(ec.visibility_of_element_located((By.ID, "hint-box")))
    picker = Select(browser.find_element(By.ID, "hint-agent"))
    assert picker.first_selected_option.text == "ppo:piraten_kapern_v0"
    picker.select_by_value("oracle")
    browser.find_element(By.ID, "hint-button").click()
    answer = browser.find_element(By.ID, "hint-answer")
    wait.until(lambda d: answer.text.startswith("oracle (an exact solver) advises: "))
    assert "1. " in answer.text and "points expected this turn" in answer.text
    picker.select_by_value("ppo:piraten_kapern_v0")
    browser.find_element(By.ID, "hint-button").click()
    wait.until(lambda d: answer.text.startswith("ppo:piraten_kapern_v0 (a trained network) advises: "))
    assert "of the time" in answer.text and "probability" not in answer.text and "not chances of winning" in answer.text
    version = page(browser, "version")
    play_one(browser)  # the position the hint was about is left: its answer goes
    WebDriverWait(browser, WAIT_S).until(lambda d: page(d, "version") != version)
    assert answer.get_attribute("textContent") == ""


def test_a_piratenpoker_hint_counts_the_cards_staged_in_the_bid(table_server, browser):  # noqa: F811
    open_table(browser, table_server.url, "piratenpoker_v0", ["heuristic", "heuristic"], {})
    wait = WebDriverWait(browser, WAIT_S)
    wait.until(lambda d: settled(d) and page(d, "your_turn") and page(d, "table.phase") == "bid")
    browser.find_element(By.CSS_SELECTOR, "#hand button.card.legal").click()  # staged, not sent
    staged = browser.execute_script("return staged.map((card) => card.choices[0].action)")
    assert len(staged) == 1
    Select(browser.find_element(By.ID, "hint-agent")).select_by_value("ppo:piratenpoker_v0")
    browser.find_element(By.ID, "hint-button").click()
    answer = browser.find_element(By.ID, "hint-answer")
    wait.until(lambda d: answer.text.startswith("ppo:piratenpoker_v0 (a trained network) advises: "))
    tid, token = re.fullmatch(r"#table=([\w-]+)&seat=([\w-]+)", browser.execute_script("return location.hash")).groups()
    asked = Request(f"{table_server.url}/api/tables/{tid}/hint?agent=ppo:piratenpoker_v0&staged={staged[0]}")
    asked.add_header("X-Seat-Token", token)
    with urlopen(asked, timeout=WAIT_S) as response:
        expected = json.load(response)
    assert answer.text == expected["text"] and expected["staged"] == staged  # the position after the staged card
    browser.find_element(By.ID, "undo").click()
    assert answer.text == ""  # a hint for other staged cards is not left on screen
