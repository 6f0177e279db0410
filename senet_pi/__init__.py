"""senet-pi: a referee for a real wooden Senet board on a Raspberry Pi.

Layers point one way: `rules` (pure game logic) <- `replay` / the referee <- hardware
backends and the web page.
"""

__version__ = "0.3.0"
