"""The command line: `parbench` and its commands (commands.py), the options they share
(options.py), `exec`'s hyperfine-shaped options (exec_command.py), and what `compare` compares
(comparands.py). Each command turns its flags into a request and hands it to a kind or a stage."""

LAYER = 11   # the top: imports any stage, none imports it (tests/unit/test_architecture.py)
