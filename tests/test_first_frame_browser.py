"""The exhibit screen's first draw. The board comes first; the side panel (the move list,
how to play, the staff's sign-in), the rulings' hidden texts and the live stream wait for the frame
that shows it, however late that frame comes on a slow CPU, and a hidden page that gets no frames
at all still gets them. The browser's frames are held or withheld by a script put in before the
page's own (its requestAnimationFrame and its visibility)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser_helpers import LiveBoard

pytestmark = pytest.mark.browser

#: Frames held back until the test lets them go: a CPU too slow to paint for a while.
HELD = """
window.heldFrames = [];
window.requestAnimationFrame = (callback) => { window.heldFrames.push(callback); return window.heldFrames.length; };
window.letFramesGo = () => { const now = performance.now(); for (const f of window.heldFrames.splice(0)) f(now); };
"""

#: A page the browser paints nothing for: hidden (a background tab, a kiosk's screen switched off).
HIDDEN = """
Object.defineProperty(Document.prototype, "hidden", { get: () => true });
Object.defineProperty(Document.prototype, "visibilityState", { get: () => "hidden" });
window.requestAnimationFrame = () => 0;
"""


def test_the_side_panel_and_the_live_stream_wait_for_the_boards_first_frame_however_late(browser):
    live = LiveBoard()
    try:
        page = browser.new_page()
        page.add_init_script(HELD)
        page.goto(live.url)
        expect(page.locator("#board .piece")).to_have_count(10)  # the board is drawn at once
        # No frame yet, for longer than any fixed fallback would wait: nothing pushes ahead of the
        # board's paint (a timer firing first on a slow CPU delayed it by the side panel's work).
        page.wait_for_timeout(800)
        assert page.locator("#how-list li").count() == 0
        expect(page.locator("#link")).to_have_text("connecting...")
        page.evaluate("() => window.letFramesGo()")
        expect(page.locator("#how-list li").first).to_be_visible()
        expect(page.locator("#link")).to_have_text("live")
        page.locator("#operator summary").click()
        expect(page.locator("#pin")).to_be_visible()  # a PIN is set: the sign-in asks for it
        page.close()
    finally:
        live.close()


def test_a_hidden_page_that_gets_no_frames_still_draws_its_side_panel_and_goes_live(browser):
    live = LiveBoard()
    try:
        page = browser.new_page()
        page.add_init_script(HIDDEN)
        page.goto(live.url)
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator("#how-list li")).not_to_have_count(0)
        expect(page.locator("#ruling-texts > *")).not_to_have_count(0)
        page.locator("#operator summary").click()
        expect(page.locator("#pin")).to_be_visible()
        page.close()
    finally:
        live.close()
