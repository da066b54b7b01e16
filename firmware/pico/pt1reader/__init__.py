"""The PT1 reader's portable logic: PT1 lines, the chips' protocols, the scan of the antennas.

Plain MicroPython and plain CPython alike: no typing or dataclasses at run time, no
hardware. What the code needs from the Pico (a clock, the SPI bus with its chip selects, an
input pin, the USB serial line) comes in from board.py on the Pico and from tests/firmware's shim
under CPython. Copied to the Pico as the directory /pt1reader.
"""
