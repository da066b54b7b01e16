"""The cash game floor (CG "Tischwechsel", "Must Move"): waiting lists per game, must-move tables
feeding a main table, table changes approved by the floor. A pure core (`core`), a service that
owns MQTT and the journal (`service`, `store`)."""
