"""`python -m train COMMAND`: mine, check, fit, export, or all of them (see train/README.md)."""

import sys

from train.cli import main

sys.exit(main())
