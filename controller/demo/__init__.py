"""Demonstrations and scripted sessions: the narrated demo, the simulated-hardware prelude, the
room on one machine, and the scripted hands that tests and benchmarks share.

May import everything below the command line.
"""
