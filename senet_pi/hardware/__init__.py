"""The board's hardware: reed switches under the squares, the stick thrower's button and LEDs, the
LED strip under the squares (`strip`, over SPI), on gpiozero's pins (or its MockFactory: the
simulated board) or through the serial bridge.

Backends feed the service: it may import the service and everything below it, never the fleet or
the front ends.
"""
