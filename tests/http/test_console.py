"""The web console in a real browser (headless Chromium) against a real
neardupd: create a collection, add documents, search for an edited copy and
see its shared passages highlighted, compare two texts, open and delete a
document. Screenshots of each page go to $NEARDUP_ARTIFACTS (the build's
tests/http/console-screenshots by default)."""

import json
import os
import urllib.parse
import shutil
import time

import pytest

from conftest import Neardupd, b64, start

ORIGINAL = ("The harbour authority confirmed on Tuesday that the northern pier "
            "will close for repairs until the end of the summer season, after "
            "inspectors found corrosion in the steel supports beneath the "
            "walkway used by ferry passengers every morning.")
EDITED = ORIGINAL.replace("Tuesday", "Wednesday").replace("summer", "autumn")
OTHERS = [
    "A new bakery opened in the old town square, selling rye bread and "
    "cinnamon rolls from six in the morning to late afternoon each day.",
    "The city council voted to extend the cycling lane along the river, a "
    "project expected to take two years and cost eleven million euros.",
]


@pytest.fixture(scope="module")
def artifacts() -> str:
    path = os.environ.get("NEARDUP_ARTIFACTS",
                          os.path.join(os.getcwd(), "console-screenshots"))
    os.makedirs(path, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser(work):
    if shutil.which("chromium") is None:
        pytest.fail("chromium is not installed (scripts/install-deps.sh "
                    "installs it)")
    from browser import Browser
    b = Browser(work)
    yield b
    b.close()


def test_console_search_compare_and_documents(server: Neardupd, browser,
                                              artifacts):
    base = f"http://127.0.0.1:{server.http_port}"
    browser.go(f"{base}/#/collections")
    browser.wait_for("document.querySelector('#collections-table tbody tr')",
                     what="the collections table")

    # Create a collection from its form.
    browser.type_into("#create-name", "console-news")
    browser.type_into("#create-threshold", "0.5")
    browser.click("#create-form button[type=submit]")
    browser.wait_for("document.querySelector("
                     "'tr[data-collection=\"console-news\"]')",
                     what="the new collection's row")
    browser.screenshot(os.path.join(artifacts, "collections.png"))

    # Add documents from the document page.
    browser.go(f"{base}/#/document?collection=console-news")
    browser.wait_for("document.getElementById('document-collection').value "
                     "=== 'console-news'")
    for i, text in enumerate([ORIGINAL] + OTHERS):
        browser.type_into("#put-id", f"story-{i}")
        browser.type_into("#put-text", text)
        browser.click("#put-form button[type=submit]")
        browser.wait_for("document.getElementById('status').textContent"
                         f".startsWith('Added story-{i}')",
                         what=f"story-{i} saved")

    # A document whose id and text are markup: shown as text, never run.
    evil_id = '<img src=x onerror="window.pwned=1">'
    evil = server.request(
        "PUT", "/v1/collections/console-news/documents/" +
        urllib.parse.quote(evil_id, safe=""),
        {"text": b64(ORIGINAL + " <script>window.pwned=2</script>")})
    assert evil.status == 200, evil.body

    # Search for an edited copy: the original is found, its shared
    # passages are marked on both sides.
    browser.go(f"{base}/#/search?collection=console-news")
    browser.wait_for("document.getElementById('search-collection').value "
                     "=== 'console-news'")
    browser.type_into("#search-text", EDITED)
    started = time.monotonic()
    browser.click("#search-form button[type=submit]")
    browser.wait_for("document.querySelectorAll('.match').length === 2",
                     what="the matches")
    round_trip = time.monotonic() - started  # polled every 50 ms
    summary = browser.evaluate(
        "document.querySelector('#search-results .summary').textContent")
    console_ms = float(summary.rsplit("(", 1)[1].split(" ms")[0])
    found = browser.evaluate("""(() => {
      const card = document.querySelector('.match[data-id="story-0"]');
      const marks = (side) => [...card.querySelectorAll(
          `pre[data-side="${side}"] mark`)].map((m) => m.textContent);
      return {ids: [...document.querySelectorAll('.match')].map(
                  (m) => m.dataset.id),
              facts: card.querySelector('.facts').textContent,
              probe: marks('probe'), stored: marks('stored')};
    })()""")
    assert sorted(found["ids"]) == sorted(["story-0", evil_id]), found
    assert browser.evaluate(
        "document.querySelectorAll('#search-results img, "
        "#search-results script').length") == 0
    assert browser.evaluate("typeof window.pwned") == "undefined"
    assert "Exact Jaccard" in found["facts"]
    assert found["probe"] and found["stored"], found
    for passage in found["stored"]:
        assert passage in ORIGINAL
    for passage in found["probe"]:
        assert passage in EDITED
    # The longest shared run: from "will close" to just before "summer".
    assert any("will close for repairs until the end of the" in p
               for p in found["stored"]), found
    browser.screenshot(os.path.join(artifacts, "search.png"))

    # A file of another content type: an HTML page holding the edited
    # story, chosen with the file input; the server extracts its text.
    page = os.path.join(artifacts, "edited-story.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(f"<html><body><h1>Harbour</h1><p>{EDITED}</p></body></html>")
    browser.go(f"{base}/#/search?collection=console-news")
    browser.wait_for("document.getElementById('search-collection').value "
                     "=== 'console-news'")
    browser.evaluate("document.getElementById('search-text').value = ''; "
                     "document.getElementById('search-results')"
                     ".replaceChildren(); true")
    browser.choose_file("#search-file", page)
    browser.click("#search-form button[type=submit]")
    browser.wait_for("document.querySelector('.match[data-id=\"story-0\"] "
                     "pre[data-side=\"stored\"] mark')",
                     what="the file's match")
    assert "edited-story.html" in browser.evaluate(
        "document.querySelector('.match[data-id=\"story-0\"]').textContent")

    # Compare two texts.
    browser.go(f"{base}/#/compare")
    browser.type_into("#compare-a", ORIGINAL)
    browser.type_into("#compare-b", EDITED)
    browser.click("#compare-form button[type=submit]")
    compared = browser.wait_for("""(() => {
      const facts = document.querySelector('#compare-results .facts');
      return facts && {facts: facts.textContent,
        a: document.querySelectorAll('pre[data-side="a"] mark').length,
        b: document.querySelectorAll('pre[data-side="b"] mark').length};
    })()""", what="the comparison")
    assert "Exact Jaccard" in compared["facts"]
    assert compared["a"] > 0 and compared["b"] > 0, compared
    browser.screenshot(os.path.join(artifacts, "compare.png"))

    # A document, asked for from the keyboard (type the id, press Enter),
    # then deleted after confirming.
    browser.go(f"{base}/#/document?collection=console-news")
    browser.wait_for("document.getElementById('document-collection').value "
                     "=== 'console-news'")
    browser.type_into("#document-id", "story-1")
    browser.press_enter()
    browser.wait_for("document.getElementById('delete-button')",
                     what="the document view")
    text = browser.evaluate("document.querySelector('#document-view pre')"
                            ".textContent")
    assert text == OTHERS[0]
    browser.screenshot(os.path.join(artifacts, "document.png"))
    browser.evaluate("window.confirm = () => true; true")
    browser.click("#delete-button")
    browser.wait_for("document.getElementById('status').textContent"
                     ".startsWith('Deleted story-1')")
    assert server.request(
        "GET", "/v1/collections/console-news/documents/story-1").status == 404

    with open(os.path.join(artifacts, "figures.json"), "w") as f:
        # The console's own timing: the query and the matches' documents,
        # fetched and drawn.
        json.dump({"search_click_to_match_seconds": round_trip,
                   "search_console_ms": console_ms}, f)


def test_console_errors_show_and_token_is_kept_per_tab(work, browser):
    import hashlib
    tokens = os.path.join(work, "console-tokens.yaml")
    digest = hashlib.sha256(b"console-admin").hexdigest()
    with open(tokens, "w") as f:
        f.write(f"tokens:\n  - {{name: a, sha256: {digest}, "
                f"scopes: [\"admin\"]}}\n")
    server = start(work, [f"--auth-tokens={tokens}"])
    try:
        server.wait_serving()
        base = f"http://127.0.0.1:{server.http_port}"
        browser.go(f"{base}/#/collections")
        browser.wait_for("document.getElementById('status').className "
                         "=== 'error'", what="an error")
        status = browser.evaluate("document.getElementById('status')"
                                  ".textContent")
        assert "401" in status and "UNAUTHENTICATED" in status, status
        browser.type_into("#token", "console-admin")
        browser.evaluate("document.getElementById('token').dispatchEvent("
                         "new Event('change')); true")
        browser.wait_for("document.querySelector('#collections-table tbody "
                         "tr td') && document.getElementById('status')"
                         ".className !== 'error'", what="the table")
        assert browser.evaluate(
            "sessionStorage.getItem('neardup-token')") == "console-admin"
        assert browser.evaluate(
            "localStorage.getItem('neardup-token')") is None
    finally:
        server.stop()
