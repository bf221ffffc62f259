"""Run ``engine.gomocup.pbrain`` (see the package's docstring)."""

import sys

from engine.gomocup.pbrain import main

sys.exit(main())
