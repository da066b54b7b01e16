"""Hand histories in and out: PHH files replayed through the engine, and table-event streams
replayed through the session.

May import: engine, session. Never the wire or the table service.
"""
