"""pokertable drivers: RFID readers, GPIO buttons and their simulators."""
