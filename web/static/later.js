// The status page's scripts, run once the board the server drew is on the screen: on a slow CPU,
// reading them before the first paint held the board back. This loader is all that runs before it;
// the scripts it names were fetched meanwhile (the page's preload links), and run in their order.
// A hidden page gets no frames (a background tab, a kiosk's screen off): it runs them at once.
(() => {
  let loaded = false;
  const load = () => {
    if (loaded) return;
    loaded = true;
    document.removeEventListener("visibilitychange", hidden);
    for (const link of document.querySelectorAll('link[rel="preload"][as="script"]')) {
      const script = document.createElement("script");
      script.src = link.href;
      script.async = false;  // run in the order named: app.js first
      document.body.appendChild(script);
    }
  };
  const hidden = () => { if (document.hidden) setTimeout(load, 0); };
  document.addEventListener("visibilitychange", hidden);
  hidden();
  requestAnimationFrame(() => { window.senetFramed = true; setTimeout(load, 0); });
})();
