"""The central host's services: the recorder, the tournament clock and the floor display (the
tournament itself will live here too).

May import: engine, session, mqtt, history. Never a table's service or its drivers.
"""
