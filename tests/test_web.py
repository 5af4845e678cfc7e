"""The web page end to end in headless Chromium: type a question, press Translate, read the answer."""

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


@pytest.fixture
def page(kb_store, tmp_path):
    settings = ProgramSettings(examples_k=0, ontology_k=0, max_repairs=0)
    toolbox = Toolbox(ToolboxConfig(version="uncompiled", store=kb_store, settings=settings),
                      lm_object=DummyLM([{"sparql": CASA}] * 4))
    app = build_app(toolbox, artifact_root=tmp_path)
    port = free_port()
    launch(app, "127.0.0.1", port, block=False)
    yield f"http://127.0.0.1:{port}/"
    app.close()
    toolbox.close()


@pytest.mark.slow
# CI installs both (see .ci/run), so there a missing browser fails instead of skipping.
@pytest.mark.skipif(not (CHROMIUM and DRIVER) and not os.environ.get("CI"),
                    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
def test_translate_in_a_real_browser(page, tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1400"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        driver.get(page)
        wait = WebDriverWait(driver, 60)
        box = wait.until(ready.element_to_be_clickable((By.CSS_SELECTOR, "#question textarea")))
        box.send_keys("Qual è il lemma di «casa»?")
        driver.find_element(By.ID, "translate").click()
        wait.until(ready.text_to_be_present_in_element((By.ID, "answer"), "Risposta: casa."))
        time.sleep(0.5)  # let the table and the SPARQL box finish drawing before the picture
        shot = Path(os.environ.get("NL2SPARQL_SCREENSHOTS", tmp_path)) / "web-translate.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        print(f"screenshot: {shot}")
        assert "casa" in driver.find_element(By.ID, "rows").text
        assert "writtenRep" in driver.page_source
    finally:
        driver.quit()
