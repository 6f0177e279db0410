"""The fleet's topics (the MQTT contract in docs/reference/mqtt.md), and the additions: a board's remote commands
and their results."""

from __future__ import annotations

ROOT = "senet-pi"
LIVENESS = 60  # seconds a board's `online` holds (its MQTT 5 expiry; the dashboard's and Home Assistant's timeout)


def status(board: str) -> str:
    """Retained `online`/`offline`; `offline` is also the board's last will."""
    return f"{ROOT}/{board}/status"


def state(board: str) -> str:
    """Retained: the JSON object the board's page answers at GET /api/state."""
    return f"{ROOT}/{board}/state"


def verdicts(board: str) -> str:
    """QoS 1, not retained: one verdict a message, as `senet-pi replay` prints it."""
    return f"{ROOT}/{board}/verdicts"


def command(board: str) -> str:
    """An addition: signed staff commands for a board that allows them (see `commands`)."""
    return f"{ROOT}/{board}/command"


def command_result(board: str) -> str:
    """An addition: the board's answer to each command it was sent, QoS 1, not retained."""
    return f"{ROOT}/{board}/command/result"


def command_nonce(board: str) -> str:
    """An addition: the nonce a signed command must carry now, retained (see `commands`)."""
    return f"{ROOT}/{board}/command/nonce"


def summary(board: str) -> str:
    """An addition, retained: the board in a few readable fields (see `summary`), for Home Assistant and people."""
    return f"{ROOT}/{board}/summary"


def event(board: str) -> str:
    """An addition, QoS 1, not retained: a win, an illegal move, a new game, a table needing staff."""
    return f"{ROOT}/{board}/event"


def button(board: str) -> str:
    """An addition: a staff button pressed (payload: the action), authorised by the broker's access list."""
    return f"{ROOT}/{board}/button"


#: What the dashboard subscribes to: every board's status, state, verdicts, command results and command nonce.
WATCHED = [
    f"{ROOT}/+/status",
    f"{ROOT}/+/state",
    f"{ROOT}/+/verdicts",
    f"{ROOT}/+/command/result",
    f"{ROOT}/+/command/nonce",
]


def split(topic: str) -> tuple[str, str] | None:
    """(board, what) for a fleet topic (`what`: status, state, verdicts, command/result...), else None."""
    parts = topic.split("/")
    if len(parts) < 3 or parts[0] != ROOT or not parts[1]:
        return None
    return parts[1], "/".join(parts[2:])
