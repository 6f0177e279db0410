"""Staff at a kiosk with no keyboard: the PIN typed on the on-screen keypad signs in, "sign out" signs
out again, the panel's link opens the staff card, and the card prints as exactly one A5 page
(Debian's chromium, its PDF)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from senet_pi.i18n import gettext
from tests.browser_helpers import PIN, LiveBoard, open_page

pytestmark = pytest.mark.browser

A5_POINTS = (419.53, 595.28)  # 148 mm x 210 mm


@pytest.fixture(scope="module")
def board():
    live = LiveBoard(seed=3)
    yield live
    live.close()


def pdf_pages(pdf: bytes) -> list[tuple[float, float]]:
    """The size in points of each page of a PDF chromium printed (its /MediaBox entries)."""
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", pdf)
    return [(float(w), float(h)) for w, h in boxes]


@pytest.mark.parametrize("lang", ["en", "de", "ar"])
def test_the_keypad_signs_in_and_the_card_prints_on_one_a5_page(browser, board, lang):
    page = open_page(browser, board, lang)
    page.locator("#operator summary").click()
    for digit in PIN + "9":  # one digit too many, taken off again with the keypad's last key
        page.locator(f'#pin-pad [data-digit="{digit}"]').click()
    page.locator('#pin-pad [data-digit=""]').click()
    expect(page.locator("#pin")).to_have_value(PIN)
    page.locator("#login > button").click()
    expect(page.locator("#op-actions")).to_be_visible()
    page.get_by_role("button", name=gettext("sign out", lang)).click()  # signed out: the keypad again
    expect(page.locator("#op-actions")).to_be_hidden()
    expect(page.locator("#login")).to_be_visible()
    for digit in PIN:
        page.locator(f'#pin-pad [data-digit="{digit}"]').click()
    page.locator("#login > button").click()
    page.get_by_role("link", name=gettext("staff card to print", lang)).click()
    expect(page.locator("h1")).to_have_text(gettext("Senet table: staff card", lang))
    expect(page.locator(".address")).to_have_text(board.url)
    expect(page.locator(".qr svg")).to_be_visible()
    pages = pdf_pages(page.pdf(prefer_css_page_size=True))
    assert len(pages) == 1, f"the card printed on {len(pages)} pages"
    (width, height) = pages[0]
    assert abs(width - A5_POINTS[0]) < 1 and abs(height - A5_POINTS[1]) < 1, pages
    page.close()
