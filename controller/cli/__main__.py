"""`python -m controller.cli`: the same as the `pokertable` command."""

import sys

from controller.cli import main

sys.exit(main())
