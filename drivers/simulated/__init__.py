"""Reader chips simulated down to their wire protocols (SPI registers and commands, UART frames),
so that the real drivers run against them in the tests, ``--simulate`` and ``make demo``. Nothing
here runs on a table: the table imports this package only when it is asked to simulate.
"""
