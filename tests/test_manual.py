"""The manual the board serves (/manual/): every page of docs/ as HTML with no Sphinx, every link and
picture in it landing, the blocks Sphinx fills from the code filled here too; and the Markdown
itself never shows an empty block where a code host cannot fill one."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from senet_pi.service.core import Service
from senet_pi_web import create_app

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)
NOTE = "Filled in from the code when the manual is built"
FENCE = re.compile(r"^( *)(`{3,})\{([a-z-]+)\}[^\n]*\n(.*?)^\1\2$", re.MULTILINE | re.DOTALL)


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": True, "SECRET_KEY": "t"}, service=Service(None)).test_client()


class Links(HTMLParser):
    """The links, pictures and heading ids of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        target = found.get("href") if tag == "a" else found.get("src") if tag == "img" else None
        if target and not urlsplit(target).scheme:
            self.links.append(target)


def parsed(client, url: str) -> Links:
    page = client.get(url)
    assert page.status_code == 200, url
    links = Links()
    links.feed(page.get_data(as_text=True))
    return links


@pytest.mark.parametrize("path", PAGES)
def test_every_page_is_served_and_every_link_on_it_lands(client, path):
    url = f"/manual/{path}"
    links = parsed(client, url)
    for link in links.links:
        target = urljoin("http://localhost" + url, link)
        where, _, anchor = target.partition("#")
        where = urlsplit(where).path
        if where.endswith(".md"):
            assert not anchor or anchor in parsed(client, where).ids, f"{path}: {link} has no such heading"
            continue
        with client.get(where) as answer:  # a picture: sent as a file, closed here
            assert answer.status_code in (200, 302), f"{path}: {link}"


def test_the_generated_blocks_are_filled_from_the_code(client):
    assert "STAFF_CONTACT" in client.get("/manual/docs/configuration.md").get_data(as_text=True)
    trouble = client.get("/manual/docs/troubleshooting.md").get_data(as_text=True)
    assert "wrong PIN: try again in {seconds} s" in trouble  # a sentence of the catalogue
    building = client.get("/manual/docs/building.md").get_data(as_text=True)
    assert "[matrix]" in building  # the pin map, included
    assert "reed switch" in building  # the parts list, included
    api = client.get("/manual/docs/reference/python-api.md").get_data(as_text=True)
    assert "senet_pi.rules.Game" in api
    assert ".. auto" not in api
    shown = [p for p in PAGES if NOTE in client.get(f"/manual/{p}").get_data(as_text=True)]
    # left to the built site: the module map, and on a page with no command line to fill them (a test's
    # app), the commands' options; their notes say where to read them
    assert shown == ["docs/commands.md", "docs/development.md"]


def test_the_commands_options_are_filled_by_the_command_line_that_serves_the_page(client, monkeypatch):
    """`senet-pi run` gives the page's manual its parser when the page starts: every subcommand and
    every option of each on the board's Commands page, as the built manual has them."""
    from senet_pi.cli.command import build_parser
    from senet_pi.cli.docs import add_to_manual
    from senet_pi_web import manual

    monkeypatch.setattr(manual, "ADDED_FILLERS", {})
    add_to_manual(build_parser)
    commands = client.get("/manual/docs/commands.md").get_data(as_text=True)
    assert NOTE not in commands
    assert "<code>senet-pi backup</code>" in commands  # the table of subcommands
    assert "--page-port PAGE_PORT" in commands  # run's options
    assert "--keep N" in commands  # backup's
    assert "journal recover" in commands
    assert NOTE in client.get("/manual/docs/development.md").get_data(as_text=True)  # the module map stays a note


@pytest.mark.parametrize(
    "url",
    ["/manual/docs/../setup.py", "/manual/pyproject.toml", "/manual/docs/_ext/senet_docs.py", "/manual/docs/conf.py"],
)
def test_nothing_but_the_manual_is_served(client, url):
    assert client.get(url).status_code == 404


def test_raw_html_in_a_page_is_shown_not_run():
    from senet_pi_web.manual import _renderer

    assert "<script>" not in _renderer().render("<script>alert(1)</script>\n", {"page": ROOT / "docs" / "x.md"})


def test_no_generated_block_is_empty_in_the_markdown():
    """On a code host (or the Markdown on a Pi) a directive's block shows only what is written in it:
    each says what the code fills in there and where to read it."""
    empty, notes = [], []
    for page in [*PAGES, "README.md"]:
        for block in FENCE.finditer((ROOT / page).read_text(encoding="utf-8")):
            said = [line for line in block.group(4).splitlines() if line.strip() and not line.strip().startswith(":")]
            if block.group(3) != "toctree" and not said:
                empty.append(f"{page}: {block.group(0).splitlines()[0]}")
            if block.group(3).startswith("senet-"):
                notes.append(" ".join(said))
    assert not empty, f"a generated block with no sentence for a code host: {empty}"
    assert len(notes) >= 34
    for note in notes:  # where to read what the code fills in: a file or a page of the built site
        assert "manual" in note, note
        assert re.search(r"[\w/]+\.(html|md|toml)", note), note


def test_the_staff_panel_links_the_manual(client):
    assert 'href="/manual/"' in client.get("/").get_data(as_text=True)


def test_senet_pi_docs_names_the_pages_and_the_address(capsys):
    import argparse

    from senet_pi.cli.docs import cmd_docs

    assert cmd_docs(argparse.Namespace(page_port=8123)) == 0
    said = capsys.readouterr().out.splitlines()
    folder = Path(said[0].split(": ", 1)[1].split(" (")[0])
    assert (folder / "index.md").is_file()
    assert said[1].endswith("http://127.0.0.1:8123/manual/")
    assert re.search(r"http://[\w-]+\.local:8123/manual/$", said[2])


def test_senet_pi_run_serves_the_commands_options_on_its_manual(tmp_path):
    """The wiring: the page `senet-pi run` starts has its manual's Commands page filled, no note left."""
    import os
    import socket
    import subprocess
    import urllib.request

    from tests.cli_helpers import start_board

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "SENET_PI_INSTANCE": str(tmp_path / "instance"), "PYTHONPATH": str(ROOT)}
    env.pop("NOTIFY_SOCKET", None)
    board = start_board(tmp_path / "j.sqlite", port, env, stderr=subprocess.DEVNULL)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/manual/docs/commands.md", timeout=60) as answer:
            page = answer.read().decode()
    finally:
        board.kill()
        board.communicate(timeout=60)  # and its pipes closed
    assert NOTE not in page
    assert "<code>--page-port PAGE_PORT</code>" in page
