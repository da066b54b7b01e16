"""The table service on its Pi: the journal written ahead, the loop that feeds the session, the
local outputs, its configuration file and the runner that wires readers, buttons and MQTT to it.

May import: engine, session, mqtt, the drivers. Imported by: demo and the command line.
"""
