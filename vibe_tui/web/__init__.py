"""The web view: the same session in a browser tab, served on the caller's event loop."""

from vibe_tui.web.server import DEFAULT_PORT, WebView, serve_forever

__all__ = ["DEFAULT_PORT", "WebView", "serve_forever"]
