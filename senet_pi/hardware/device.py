"""gpiozero's device lifecycle for senet-pi's own devices (the switch matrix, the stick thrower).

A `Device` says whether it is `closed`, may be closed twice, works in `with`, and refuses to be
used after `close()` with `DeviceClosed`, as gpiozero's devices do. Its `when_*` attributes are
`EventHandler`s: a callable or None, anything else refused at once with `BadEventHandler`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from ..errors import BadEventHandler, DeviceClosed


class EventHandler:
    """A `when_*` attribute of a device: a callable or None (anything else is a BadEventHandler)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.slot = "_" + name

    def __get__(self, device: object, owner: type | None = None) -> Any:
        if device is None:
            return self
        return getattr(device, self.slot, None)

    def __set__(self, device: object, handler: Callable[..., object] | None) -> None:
        if handler is not None and not callable(handler):
            raise BadEventHandler(f"{self.name} must be a function or None, not {handler!r}")
        setattr(device, self.slot, handler)


class Device:
    """The lifecycle every senet-pi device shares; subclasses must implement `closed` and `close()`."""

    @property
    def closed(self) -> bool:
        """Whether `close()` has released the device's pins."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _check_open(self) -> None:
        if self.closed:
            raise DeviceClosed(f"the {type(self).__name__} is closed: make a new one to use the pins again")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
