"""`pokertable install host|table`: a fresh Debian 12 or Raspberry Pi OS made into a venue's
central host or one of its tables, idempotently; ``--root DIR`` installs into a directory tree
instead of the machine (docs/install.md)."""
