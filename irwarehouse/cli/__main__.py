"""`python -m irwarehouse.cli`: the irw command."""

from . import main

main()
