"""``agentmem completion bash|zsh|fish``: the shell completion script, on stdout."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from agentmem.cli import output

app = typer.Typer()

COMPLETE_VAR = "_AGENTMEM_COMPLETE"


class Shell(StrEnum):
    """The shells agentmem completes in."""

    bash = "bash"
    zsh = "zsh"
    fish = "fish"


@app.command(short_help="Print the shell completion script (bash, zsh, fish).")
def completion(
    shell: Annotated[Shell, typer.Argument(help="bash, zsh or fish.", show_default=False)],
) -> None:
    """Print the completion script for your shell (commands, options, their values).

    For zsh, ~/.zfunc must be in fpath before compinit runs.

    Examples:

    \b
      agentmem completion bash \\
        > ~/.local/share/bash-completion/completions/agentmem
      agentmem completion zsh > ~/.zfunc/_agentmem
      agentmem completion fish > ~/.config/fish/completions/agentmem.fish
    """
    # typer's scripts call back with ``complete_<shell>``, the form its completion classes
    # (registered by agentmem.cli) answer; click's own scripts use another form.
    from typer._completion_shared import get_completion_script

    script = get_completion_script(
        prog_name="agentmem", complete_var=COMPLETE_VAR, shell=shell.value
    )
    output.data(script.rstrip("\n"))
