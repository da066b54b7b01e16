"""Simulation, a wing of its own: the hardware a table is simulated on (table_rig.py: its
readers at their wire protocols, its deck and chip case, its button panel). A table on a Pi
never imports it: `pokertable table --simulate` does (controller/table/runner.py, the one
import the layers contract lets a table make of it)."""
