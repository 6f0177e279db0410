"""The part of gpiozero senet-pi uses: devices on a pin factory."""

from collections.abc import Callable
from types import TracebackType
from typing import ClassVar, Self

from .pins import Factory

class Device:
    pin_factory: ClassVar[Factory | None]
    def __init__(self, *, pin_factory: Factory | None = None) -> None: ...
    @staticmethod
    def ensure_pin_factory() -> None: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def value(self) -> object: ...
    def __enter__(self) -> Self: ...
    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

class GPIODevice(Device):
    def __init__(self, pin: int | str | None = None, *, pin_factory: Factory | None = None) -> None: ...

class InputDevice(GPIODevice):
    def __init__(
        self,
        pin: int | str | None = None,
        *,
        pull_up: bool | None = False,
        active_state: bool | None = None,
        pin_factory: Factory | None = None,
    ) -> None: ...
    @property
    def value(self) -> int: ...
    @property
    def is_active(self) -> bool: ...

class DigitalInputDevice(InputDevice):
    def __init__(
        self,
        pin: int | str | None = None,
        *,
        pull_up: bool | None = False,
        active_state: bool | None = None,
        bounce_time: float | None = None,
        pin_factory: Factory | None = None,
    ) -> None: ...
    when_activated: Callable[[], object] | None
    when_deactivated: Callable[[], object] | None

class Button(DigitalInputDevice):
    def __init__(
        self,
        pin: int | str | None = None,
        *,
        pull_up: bool | None = True,
        active_state: bool | None = None,
        bounce_time: float | None = None,
        hold_time: float = 1,
        hold_repeat: bool = False,
        pin_factory: Factory | None = None,
    ) -> None: ...
    @property
    def is_pressed(self) -> bool: ...
    when_pressed: Callable[[], object] | None
    when_released: Callable[[], object] | None

class OutputDevice(GPIODevice):
    def __init__(
        self,
        pin: int | str | None = None,
        *,
        active_high: bool = True,
        initial_value: bool | None = False,
        pin_factory: Factory | None = None,
    ) -> None: ...
    def on(self) -> None: ...
    def off(self) -> None: ...
    @property
    def value(self) -> int: ...
    @value.setter
    def value(self, value: bool | int) -> None: ...

class DigitalOutputDevice(OutputDevice):
    def blink(self, on_time: float = 1, off_time: float = 1, n: int | None = None, background: bool = True) -> None: ...

class LED(DigitalOutputDevice): ...

class Buzzer(DigitalOutputDevice):
    def beep(self, on_time: float = 1, off_time: float = 1, n: int | None = None, background: bool = True) -> None: ...

class LEDBoard(Device):
    def __init__(
        self,
        *pins: int | str,
        pwm: bool = False,
        active_high: bool = True,
        initial_value: bool = False,
        pin_factory: Factory | None = None,
    ) -> None: ...
    @property
    def value(self) -> tuple[int, ...]: ...
    @value.setter
    def value(self, value: tuple[bool | int, ...]) -> None: ...
    def __getitem__(self, index: int) -> LED: ...
    def __len__(self) -> int: ...
    def on(self) -> None: ...
    def off(self) -> None: ...
    def blink(self, on_time: float = 1, off_time: float = 1, n: int | None = None, background: bool = True) -> None: ...
