"""CPython stand-ins for running the Pico firmware on a computer (never copied to a Pico)."""
