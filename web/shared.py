"""The objects an app shares, as one typed value: `app.extensions["senet"]`, written by `init_app`
when the app is made and read through `shared()` (the board's page) or `dashboard()` (the fleet's).

A board's page shares its `Board` (the service, backend, computer, hints and publisher, see
`senet_pi.fleet.published`) with the command line and the fleet: they fill it in, the page reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flask import Flask, current_app

from senet_pi.fleet.published import Board

from .door import TableDoor
from .pin import PinGuard

if TYPE_CHECKING:
    from senet_pi.fleet.watcher import FleetWatcher

    from .fleet import FleetStreams
    from .live import Broker

#: The key of `app.extensions` the shared value is kept under.
KEY = "senet"


@dataclass(eq=False)
class Shared:
    """What every app of this package shares: its operator PIN guard."""

    pin_guard: PinGuard

    def init_app(self, app: Flask) -> None:
        """Make this the app's shared value (once, when the app is made)."""
        app.extensions[KEY] = self

    def close(self) -> None:
        """End the live streams at once (the server is stopping)."""


@dataclass(eq=False)
class Senet(Shared):
    """A board's page: its board, the live streams' broker, and who may answer its questions."""

    board: Board
    broker: Broker
    door: TableDoor = field(default_factory=TableDoor)

    def close(self) -> None:
        self.broker.close()


@dataclass(eq=False)
class Dashboard(Shared):
    """The fleet's dashboard: what it hears of the boards, and its live streams."""

    watcher: FleetWatcher
    broker: FleetStreams

    def close(self) -> None:
        self.broker.close()


def shared_of(app: Flask) -> Shared:
    """`app`'s shared value (TypeError for an app this package did not make)."""
    value = app.extensions.get(KEY)
    if not isinstance(value, Shared):
        raise TypeError(f"{app.name} was not made by senet_pi_web's create_app")
    return value


def shared(app: Flask | None = None) -> Senet:
    """The board page's shared value (of the current app unless `app` is given)."""
    value = shared_of(app if app is not None else current_app)
    if not isinstance(value, Senet):
        raise TypeError("this app is the fleet's dashboard, not a board's page")
    return value


def dashboard(app: Flask | None = None) -> Dashboard:
    """The fleet dashboard's shared value (of the current app unless `app` is given)."""
    value = shared_of(app if app is not None else current_app)
    if not isinstance(value, Dashboard):
        raise TypeError("this app is a board's page, not the fleet's dashboard")
    return value
