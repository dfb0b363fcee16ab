"""``python -m drafting_config``: the same as the ``drafting-config`` command."""

import sys

from drafting_config.cli import main

sys.exit(main())
