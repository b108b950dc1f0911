from parbench.cli import main

main()
