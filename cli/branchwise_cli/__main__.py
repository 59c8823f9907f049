import sys

from branchwise_cli.main import main

sys.exit(main())
