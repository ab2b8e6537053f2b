"""`python -m filegram_kit.cli ...`: the `filegram` command."""

import sys

from .commands import main

sys.exit(main())
