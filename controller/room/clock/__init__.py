"""The tournament clock: its structures (`structure`), its rules (`rules`: the levels, breaks
and the floor's commands), the room's holds (`holds`: whether each table may deal), all pure;
its journal (`store`), its configuration (`config`) and the service that talks MQTT
(`service`)."""
