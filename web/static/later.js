// The status page's scripts and the rest of its style sheet, taken in once the board the server drew is
// on the screen: on a slow CPU, reading them before the first paint held the board back. The page
// carries only the first frame's styles in itself (style.css); more.css (what the scripts draw: the
// questions, the arrows, the overlays) comes next, then the scripts, in the order named (app.js first),
// so that nothing the scripts draw is ever shown unstyled. This loader is all that runs before the
// first paint; what it names was fetched meanwhile (the page's preload links).
// A hidden page gets no frames (a background tab, a kiosk's screen off): it goes on at once.
(() => {
  let loaded = false;
  const scripts = () => {
    for (const link of document.querySelectorAll('link[rel="preload"][as="script"]')) {
      const script = document.createElement("script");
      script.src = link.href;
      script.async = false;  // run in the order named: app.js first
      document.body.appendChild(script);
    }
  };
  const load = () => {
    if (loaded) return;
    loaded = true;
    document.removeEventListener("visibilitychange", hidden);
    const more = document.querySelector('link[rel="preload"][as="style"]');
    if (!more) return scripts();
    const sheet = document.createElement("link");
    sheet.rel = "stylesheet";
    sheet.href = more.href;
    sheet.onload = sheet.onerror = scripts;  // a sheet that fails to load must not leave the page without its scripts
    document.head.appendChild(sheet);
  };
  const hidden = () => { if (document.hidden) setTimeout(load, 0); };
  document.addEventListener("visibilitychange", hidden);
  hidden();
  requestAnimationFrame(() => { window.senetFramed = true; setTimeout(load, 0); });
})();
