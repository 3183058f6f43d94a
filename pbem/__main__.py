import sys

from pbem.cli import main

sys.exit(main())
