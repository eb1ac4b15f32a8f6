"""The command line (docs/design/overview.md §Commands, §Exit codes): one typer sub-app per
command (``cli/<command>.py``), the root group, its error handler and the lazy registry of the
commands in :mod:`agentmem.cli.tree`, every output stream in :mod:`agentmem.cli.output`.

Importing the package loads the tree module (typer, the notice sink, completion), as the console
script and ``python -c 'import agentmem.cli; agentmem.cli.main()'`` expect. The whole command
tree, built on first use, is ``agentmem.cli.tree.app``.
"""

from agentmem.cli.tree import (
    COMMANDS,
    AgentmemGroup,
    build_app,
    command_named,
    main,
    subcommand_named,
)

__all__ = ["COMMANDS", "AgentmemGroup", "build_app", "command_named", "main", "subcommand_named"]
