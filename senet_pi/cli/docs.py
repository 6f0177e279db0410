"""`senet-pi docs`: where the manual is on this machine, as files and on the board's page.

The manual ships with the package (the Markdown pages of docs/, their pictures and the hardware's
files: see senet_pi_web.manual), so a board with no internet still has it, and `senet-pi run`
serves it at /manual/.
"""

from __future__ import annotations

import argparse
import socket

from .status import page_port


def cmd_docs(args: argparse.Namespace) -> int:
    """Print the manual's folder and its addresses on the page."""
    from senet_pi_web.manual import manual_root

    root = manual_root()
    port = args.page_port or page_port()
    print(f"the manual's pages (Markdown): {root / 'docs'} (start at index.md)")
    print(f"on this machine, while senet-pi run serves its page: http://127.0.0.1:{port}/manual/")
    print(f"from another computer or a phone on the network: http://{socket.gethostname()}.local:{port}/manual/")
    print("(the page listens beyond this machine with --host 0.0.0.0, as the exhibit's service does)")
    return 0
