"""`python -m controller.cli`: the same as the `pokertable` command."""

from controller.cli import entry

entry()
