"""``python -m drafting_config``: the same as the ``drafting-config`` command."""

import sys

from drafting_config.command import main

sys.exit(main())
