"""Firmware for boards that work beside the table's Pi. Nothing here is installed with pokertable
or imported by it: the package markers only let tests/firmware import the firmware's portable
modules under CPython."""
