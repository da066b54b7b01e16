"""The floor display: a web server of the central host."""
