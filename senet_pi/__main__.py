"""`python -m senet_pi` is the `senet-pi` command."""

import sys

from .cli import main

sys.exit(main())
