"""The PT1 reader board on a Raspberry Pi Pico (MicroPython): docs/firmware.md. This file is not
copied to the Pico; it only makes the directory importable by tests/firmware."""
