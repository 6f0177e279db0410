"""The USB bridge: MicroPython firmware for a Pico under the board, and its protocol codec.

On the Pico the modules sit side by side (`import codec`); on the host, `codec` is imported as
`firmware_bridge.codec`, the same file: the one implementation of the protocol.
This file is not copied to the Pico.
"""
