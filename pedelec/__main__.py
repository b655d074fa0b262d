"""``python -m pedelec``: the same command line as the ``pedelec`` console script."""

from pedelec.cli import main

raise SystemExit(main())
