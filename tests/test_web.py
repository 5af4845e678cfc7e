"""The web page end to end in headless Chromium: type a question, press Translate, read the answer."""

import contextlib
import csv
import os
import shutil
import socket
import time
from pathlib import Path

import pytest
from conftest import PREFIXES
from dspy.utils.dummies import DummyLM

from nl2sparql.modules.program import ProgramSettings
from nl2sparql.serve.tools import Toolbox, ToolboxConfig
from nl2sparql.serve.web import build_app, launch

CASA = PREFIXES + 'SELECT ?lemma WHERE { GRAPH <http://liita.it/data> { ?lemma ontolex:writtenRep "casa"@it } }'
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


PER_EMOTION = PREFIXES + """SELECT ?emotion (COUNT(DISTINCT ?lemma) AS ?count) WHERE {
  GRAPH <http://w3id.org/elita> { ?entry elita:HasEmotion ?emotion ; ontolex:canonicalForm ?lemma } }
GROUP BY ?emotion ORDER BY DESC(?count)"""
NEEDS_BROWSER = pytest.mark.skipif(
    not (CHROMIUM and DRIVER) and not os.environ.get("CI"),  # CI installs both (.ci/run): there a missing one fails
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")


@contextlib.contextmanager
def serving(kb_store, tmp_path, sparql: str, answers: int = 4):
    settings = ProgramSettings(examples_k=0, ontology_k=0, max_repairs=0)
    # (a follow-up's rewrite reads `standalone_question`, the generate step `sparql`: one reply serves both)
    reply = {"sparql": sparql, "standalone_question": "Qual è il lemma?"}
    toolbox = Toolbox(ToolboxConfig(version="uncompiled", store=kb_store, settings=settings),
                      lm_object=DummyLM([reply] * answers))
    app = build_app(toolbox, artifact_root=tmp_path)
    port = free_port()
    launch(app, "127.0.0.1", port, block=False)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        app.close()
        toolbox.close()


@pytest.fixture
def page(kb_store, tmp_path):
    with serving(kb_store, tmp_path, CASA) as url:
        yield url


def browser(downloads: Path | None = None):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1400",
                 "--disable-background-networking", "--disable-component-update", "--no-first-run"):
        options.add_argument(flag)
    if downloads is not None:
        options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                                  "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    if downloads is not None:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return driver


def translate_in(driver, url: str, question: str, answer: str):
    """Open the page, ask `question` in the Translate tab and wait for `answer` to show; the wait, for more."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    wait = WebDriverWait(driver, 60)
    wait.until(ready.element_to_be_clickable((By.CSS_SELECTOR, "#question textarea"))).send_keys(question)
    driver.find_element(By.ID, "translate").click()
    wait.until(ready.text_to_be_present_in_element((By.ID, "answer"), answer))
    return wait


@pytest.mark.slow
@NEEDS_BROWSER
def test_translate_in_a_real_browser(page, tmp_path):
    from selenium.webdriver.common.by import By

    driver = browser()
    try:
        translate_in(driver, page, "Qual è il lemma di «casa»?", "Risposta: casa.")
        time.sleep(0.5)  # let the table and the SPARQL box finish drawing before the picture
        shot = Path(os.environ.get("NL2SPARQL_SCREENSHOTS", tmp_path)) / "web-translate.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        print(f"screenshot: {shot}")
        assert "casa" in driver.find_element(By.ID, "rows").text
        assert "writtenRep" in driver.page_source
        assert "Inteso come:" in driver.find_element(By.ID, "answer").text  # what the question was understood as
        link = driver.find_element(By.ID, "live-endpoint").get_attribute("href")
        assert link.startswith("https://liita.it/sparql?query=")  # a link for the user's browser: never fetched
        assert not driver.find_elements(By.CSS_SELECTOR, "#chart img")  # a list of words gets no chart
    finally:
        driver.quit()


@pytest.mark.slow
@NEEDS_BROWSER
def test_a_grouped_count_shows_a_chart_and_downloads_the_table_as_csv(kb_store, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready

    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with serving(kb_store, tmp_path, PER_EMOTION) as url:
        driver = browser(downloads)
        try:
            wait = translate_in(driver, url, "Quanti lemmi ci sono per ogni emozione in ELITA?", "risultati")
            chart = wait.until(ready.visibility_of_element_located((By.CSS_SELECTOR, "#chart img")))
            assert chart.size["width"] > 200 and chart.size["height"] > 100
            time.sleep(0.5)
            shot = Path(os.environ.get("NL2SPARQL_SCREENSHOTS", tmp_path)) / "web-chart.png"
            assert driver.save_screenshot(str(shot))
            cells = driver.find_element(By.ID, "rows").text.split("\n")[1:]  # "Rows", then header and cells in order
            driver.find_element(By.ID, "download-csv").click()
            target = downloads / "answer.csv"
            deadline = time.time() + 30
            # The browser may create the file before it writes it: wait for its content, not its name.
            while not (target.exists() and target.stat().st_size) and time.time() < deadline:
                time.sleep(0.2)
            rows = list(csv.reader(target.read_text(encoding="utf-8").splitlines()))
        finally:
            driver.quit()
    assert rows[0] == ["emotion", "count"] and len(rows) > 2
    assert [cell for row in rows for cell in row] == cells, (rows[:4], cells[:8])  # the download holds the table


def test_two_conversations_at_once_stay_apart(kb_store, tmp_path):
    """Two users ask through the page's API at the same time, each in a session of its own: each conversation shows
    its own questions, in its own order, and nothing of the other's."""
    import threading

    from gradio_client import Client

    mine = {"a": ["Qual è il lemma di «casa»?", "E il lemma di «cane»?", "E il lemma di «gatto»?"],
            "b": ["What is the lemma of 'mare'?", "And of 'sole'?", "And of 'luna'?"]}
    seen: dict[str, list[str]] = {}
    with serving(kb_store, tmp_path, CASA, answers=40) as url:
        def user(name: str) -> None:
            client = Client(url, verbose=False)
            for question in mine[name]:
                transcript, _ = client.predict(question, api_name="/ask")
            seen[name] = transcript.split("\n\n---\n\n")

        threads = [threading.Thread(target=user, args=(name,)) for name in mine]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    for name, turns in seen.items():
        other = next(o for o in mine if o != name)
        assert len(turns) == 3 and all(question in turn for question, turn in zip(mine[name], turns)), turns
        assert not any(question in "".join(turns) for question in mine[other])
    assert set(seen) == {"a", "b"}
