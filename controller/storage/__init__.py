"""What the services keep on disk: SQLite stores that know their kind (sqlite_store.py), the
journal of commands a service replays after a restart (command_journal.py), consistent backups
(backup.py), and files and directories only their owner reads (private_files.py).

May import: errors. Never a service, the wire or the session."""
