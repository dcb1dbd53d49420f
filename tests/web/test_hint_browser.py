"""The page's Hint button asks the chosen agent and shows its moves (a real browser; skips as ``test_browser``)."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.web.test_browser import browser, server  # noqa: F401  (fixtures)


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
    wait.until(lambda d: answer.text.startswith("oracle:"))
    assert "expected points" in answer.text and len(answer.text.splitlines()) >= 2
    picker.select_by_value("ppo:piraten_kapern_v0")
    browser.find_element(By.ID, "hint-button").click()
    wait.until(lambda d: answer.text.startswith("ppo:piraten_kapern_v0:"))
    assert "probability" in answer.text
