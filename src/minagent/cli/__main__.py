"""``python -m minagent.cli``: the ``minagent`` command."""

import sys

from . import main

sys.exit(main())
