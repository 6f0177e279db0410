"""The command line: `senet-pi` and its subcommands, and the terminal beside a running board.

`main` builds the parser and runs one subcommand; `run` puts a service, its board, thrower, journal,
page and terminal together; the rest are one subcommand each (`selftest`, `status`, `export`) or what
`run` talks to (`systemd`, `terminal`). A front end: it may import every layer below it, and the web
package only to serve the page.
"""

from .command import build_parser, main

__all__ = ["build_parser", "main"]
