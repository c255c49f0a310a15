import sys

from costcalc.cli import main

sys.exit(main())
