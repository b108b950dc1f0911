"""`python -m parbench`: the command line."""
from parbench.cli.commands import main

LAYER = 12   # the very top

main()
