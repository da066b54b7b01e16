"""Reading what comes from outside, bounded and refused in one line: JSON from the wire and the
web (json_input.py) and the files a person writes (text_files.py).

May import: errors."""
