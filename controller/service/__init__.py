"""Running as a service: systemd's readiness and watchdog notifications, signals and the loop
(manager.py).

May import: errors."""
