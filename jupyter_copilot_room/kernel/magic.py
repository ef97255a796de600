"""`%%copilot`: the cell's body is a prompt to the room; the reply streams into the cell output.

    %load_ext jupyter_copilot_room
    %%copilot [--agent NAME | --skill NAME] [--with VAR ...]
    <the prompt>

The cell returns as soon as the prompt is queued (the agent may need this kernel during its
turn); its output shows the queue position, then the reply as Markdown, then the outcome and
usage. `--with` attaches a bounded text summary of each variable (see `summaries.py`).
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from .client import KernelRoom, connect


@magics_class
class CopilotMagics(Magics):
    """The room this kernel is connected to, found the first time the magic runs."""

    room: KernelRoom | None = None

    @magic_arguments()
    @argument("--agent", metavar="NAME", help="Address the prompt to a custom agent.")
    @argument("--skill", metavar="NAME", help="Address the prompt to a skill.")
    @argument(
        "--with",
        dest="attach",
        metavar="VAR",
        nargs="+",
        default=[],
        help="Attach a bounded text summary of these variables (never the objects).",
    )
    @cell_magic
    def copilot(self, line: str, cell: str) -> None:
        """Send the cell's body to the Copilot room; the reply streams into this output."""
        args = parse_argstring(self.copilot, line)
        if args.agent and args.skill:
            raise UsageError("%%copilot takes --agent or --skill, not both.")
        if not cell.strip():
            raise UsageError("%%copilot: the cell's body is the prompt, and it is empty.")
        namespace = self.shell.user_ns if self.shell is not None else {}
        missing = [name for name in args.attach if name not in namespace]
        if missing:
            raise UsageError(f"--with: no variable named {', '.join(missing)} in the notebook.")
        target: Any = None
        if args.agent:
            target = {"kind": "agent", "name": args.agent}
        elif args.skill:
            target = {"kind": "skill", "name": args.skill}
        if self.room is None:
            CopilotMagics.room = connect()
        assert self.room is not None
        turn = self.room.ask(
            cell, target=target, attach={name: namespace[name] for name in args.attach}
        )
        display(turn)


def load_ipython_extension(ipython: Any) -> None:
    ipython.register_magics(CopilotMagics)
