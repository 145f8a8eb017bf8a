"""`python -m aqmlab` is the same as the `aqmlab` command."""

import sys

from aqmlab.cli import main

sys.exit(main())
