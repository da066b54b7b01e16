"""The wire: the venue's topic tree, the payload models, the MQTT client settings, a table's link
to the broker with its durable outbox, and the broker's configuration (``broker init``, and a local
Mosquitto for tests, benchmarks and the demo).

May import: engine, session. Never the table service, the room or the demos.
"""
