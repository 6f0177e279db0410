"""`senet-pi docs`: where the manual is on this machine, as files and on the board's page.

The manual ships with the package (the Markdown pages of docs/, their pictures and the hardware's
files: see senet_pi_web.manual), so a board with no internet still has it, and `senet-pi run`
serves it at /manual/.
"""

from __future__ import annotations

import argparse
import socket
from collections.abc import Callable

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


def _subcommands(top: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """`senet-pi`'s subcommands by name, from the parser the command line uses."""
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _summaries(top: argparse.ArgumentParser) -> dict[str, str]:
    """Each subcommand's one-line help."""
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {choice.dest: choice.help or "" for choice in action._choices_actions}
    return {}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def commands_markdown(top: argparse.ArgumentParser) -> str:
    """The manual's ```{senet-commands} block on the board: every subcommand and what it does."""
    summaries = _summaries(top)
    rows = [f"| `senet-pi {name}` | {_cell(summaries.get(name, ''))} |" for name in _subcommands(top)]
    return "\n".join(["| command | what it does |", "|---|---|", *rows])


def _shown(action: argparse.Action) -> str:
    """An argument or option as its usage shows it: `--page-port PAGE_PORT`, `[FILE]`."""
    if action.option_strings:
        metavar = "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"
        return ", ".join(f"{option}{metavar}" for option in action.option_strings)
    shown = str(action.metavar or action.dest)
    return {"?": f"[{shown}]", "*": f"[{shown} ...]"}.get(str(action.nargs), shown)


def _option_help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    text = parser._get_formatter()._expand_help(action) if action.help else ""
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        text = f"{text} (one of {', '.join(map(str, action.choices))})".strip()
    return text


def command_markdown(top: argparse.ArgumentParser, argument: str) -> str:
    """The manual's ```{senet-command} NAME block on the board, as the built manual has it: the
    usage, what it does and every argument and option (`journal recover`: a subcommand's own)."""
    name, *deeper = argument.split()
    parser = _subcommands(top).get(name)
    for word in deeper:
        inner = {
            choice: sub
            for action in (parser._actions if parser else [])
            if isinstance(action, argparse._SubParsersAction)
            for choice, sub in action.choices.items()
        }
        parser = inner.get(word)
    if parser is None:
        return f"`senet-pi {argument} --help` says how it is used."
    usage = " ".join(parser.format_usage().split()).removeprefix("usage: ")
    summary = _summaries(top).get(name, "")
    description = parser.description or (summary[:1].upper() + summary[1:] + "." if summary else "")
    rows = [
        f"| `{_cell(_shown(action))}` | {_cell(_option_help(parser, action))} |"
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction)
    ]
    table = ["| argument or option | meaning |", "|---|---|", *rows] if rows else []
    return "\n\n".join(part for part in [f"```text\n{usage}\n```", description, "\n".join(table)] if part)


def add_to_manual(build_parser: Callable[[], argparse.ArgumentParser]) -> None:
    """Let the board's manual fill the commands' blocks from the command line's parser: called when
    the page starts (the page may not import the command line, which sits above it)."""
    from senet_pi_web.manual import ADDED_FILLERS

    ADDED_FILLERS.update(
        {
            "senet-commands": lambda _argument: commands_markdown(build_parser()),
            "senet-command": lambda argument: command_markdown(build_parser(), argument),
        }
    )
