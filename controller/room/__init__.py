"""The central host's services: the recorder today; the clock, the floor display and the
tournament live here too.

May import: engine, session, mqtt, history. Never a table's service or its drivers.
"""
