"""The Chromium the floor display's browser tests and the screenshot benchmark drive: Debian's
``chromium-headless-shell`` (`make test` installs it), the same Blink and V8 as the desktop
browser without its window, its profile and its services; what Playwright itself launches for a
headless page. Against Debian's full ``chromium`` in its headless mode it took a third of the
CPU for the floor's page tests (131 s of the browser's CPU down to 39 s for the same 107 tests,
issue 37), so the whole suite fits its five minutes on two cores.

The binary itself, not a wrapper script: /usr/bin/chromium's adds the desktop's flags (its
extensions, GPU rasterization in software). Of such flags these keep the ones a container and a
test need: no sandbox (root), no GPU, nothing fetched behind the page's back, and a small
/dev/shm not used for shared memory.
"""

from __future__ import annotations

CHROMIUM = "/usr/lib/chromium/chromium-headless-shell"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--disable-dev-shm-usage"]

__all__ = ["CHROMIUM", "CHROMIUM_FLAGS"]
