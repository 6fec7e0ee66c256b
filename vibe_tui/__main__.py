import sys

from vibe_tui.cli import main

sys.exit(main())
