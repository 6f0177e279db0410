"""The exhibit screen's first draw. The board comes first; the side panel (the move list,
how to play, the staff's sign-in), the rulings' hidden texts and the live stream wait for the frame
that shows it, however late that frame comes on a slow CPU, and a hidden page that gets no frames
at all still gets them. The browser's frames are held or withheld by a script put in before the
page's own (its requestAnimationFrame and its visibility)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser_helpers import LiveBoard, until

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


#: The sizes the page is made for: the kiosk, a laptop, the 7-inch touchscreen, a phone held upright.
SIZES = (
    {"width": 1920, "height": 1080},
    {"width": 1366, "height": 768},
    {"width": 800, "height": 480},
    {"width": 390, "height": 800},
)


def _first_frame(browser, url: str, size: dict, scheme: str, with_the_rest: bool) -> bytes:
    """The page as the server sends it, no script run (its first frame), with or without more.css."""
    context = browser.new_context(viewport=size, java_script_enabled=False, color_scheme=scheme)
    page = context.new_page()
    if with_the_rest:  # as later.js takes it in after the first paint: a style sheet after the page's own

        def add_the_rest(route):
            response = route.fetch()
            body = response.text().replace("</style>", '</style><link rel="stylesheet" href="/static/more.css">', 1)
            route.fulfill(response=response, body=body)

        page.route(url, add_the_rest)
    page.goto(url)
    shot = page.screenshot(full_page=True)
    context.close()
    return shot


@pytest.mark.parametrize("variant", ["secret", "modern"])
def test_the_rest_of_the_style_sheet_changes_nothing_in_the_first_frame(browser, variant):
    """The page carries only the first frame's styles; the rest (more.css) comes after the first
    paint. Taking it in must not move or repaint a pixel of what is already on the screen (no layout
    shift, no flash), at every size the page is made for, in both themes, with a piece lifted."""
    live = LiveBoard(variant=variant)
    try:
        if variant == "modern":
            lifted = min(live.service.snapshot().holders)
            live.backend.sim.lift(lifted)  # a lifted piece: drawn faded in the first frame
            until(lambda: lifted not in live.service.snapshot().holders)
        for size in SIZES:
            for scheme in ("light", "dark"):
                url = f"{live.url}?lang={'ar' if scheme == 'dark' else 'de'}"
                alone = _first_frame(browser, url, size, scheme, with_the_rest=False)
                assert alone == _first_frame(browser, url, size, scheme, with_the_rest=True), (size, scheme)
    finally:
        live.close()


#: Notes, when each script is put in by later.js, whether the rest of the style sheet was in by then.
SHEET_FIRST = """
window.sheetWhenScripts = [];
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes) {
    if (node.tagName === "SCRIPT" && node.src && !node.src.endsWith("/later.js")) {
      const sheets = [...document.styleSheets].map((s) => s.href || "");
      window.sheetWhenScripts.push([node.src.split("/").pop(), sheets.some((h) => h.endsWith("/more.css"))]);
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_the_scripts_run_once_the_rest_of_the_style_sheet_is_in(browser):
    """What the scripts draw (a question's answers, the arrows, the overlays) is styled by more.css:
    they are put in only once it has loaded, so nothing is ever shown unstyled."""
    live = LiveBoard()
    try:
        page = browser.new_page()
        page.add_init_script(SHEET_FIRST)
        page.goto(live.url)
        expect(page.locator("#link")).to_have_text("live")
        seen = page.evaluate("() => window.sheetWhenScripts")
        assert [name for name, _ in seen] == ["app.js", "attract.js", "computer.js"]
        assert all(loaded for _, loaded in seen), seen
        page.close()
    finally:
        live.close()
