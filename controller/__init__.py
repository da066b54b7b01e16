"""pokertable controller: hand engine, table service, MQTT, clock and floor."""
