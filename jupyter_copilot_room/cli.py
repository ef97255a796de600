"""`jupyter copilot-room ...`: command-line helpers for the room."""

from __future__ import annotations

from pathlib import Path

from jupyter_core.application import JupyterApp
from traitlets import Bool, Unicode

from .agent.runtime import RUNTIME_VERSION, RuntimeMissing, find_runtime, install_runtime
from .agent.runtime_download import download_runtime, install_tarball, terminal_progress


class InstallRuntime(JupyterApp):
    description = (
        f"Install the pinned Copilot runtime ({RUNTIME_VERSION}) from the npm registry into the "
        "room's cache directory: downloaded and checked against its pinned integrity with Python "
        "alone (no Node needed), from a tarball with --from, or with npm if asked (--npm)."
    )
    use_npm = Bool(False, config=True, help="Install with `npm install` instead.")
    tarball = Unicode(
        "",
        config=True,
        help="Install from this tarball (@github/copilot-<platform>-<version>.tgz) instead of "
        "downloading it, e.g. on an air-gapped hub; it is checked the same way.",
    )
    check = Bool(False, config=True, help="Say which runtime the room would run, and stop.")
    flags = {
        "npm": ({"InstallRuntime": {"use_npm": True}}, use_npm.help),
        "check": ({"InstallRuntime": {"check": True}}, check.help),
    }
    aliases = {"from": "InstallRuntime.tarball"}

    def start(self) -> None:
        if self.check:
            self._check()
            return
        try:
            if self.tarball:
                binary = install_tarball(Path(self.tarball).expanduser())
            elif self.use_npm:
                binary = install_runtime()
            else:
                binary = download_runtime(terminal_progress)
        except RuntimeMissing as err:
            self.exit(_told(err))
        print(f"Copilot runtime {RUNTIME_VERSION} installed: {binary}")
        print("A running room finds it when a host presses Try again in the panel.")

    def _check(self) -> None:
        try:
            found = find_runtime()
        except RuntimeMissing as err:
            self.exit(_told(err))
        print(f"The room runs {found.path} (from the {found.source}; pinned: {RUNTIME_VERSION}).")


def _told(err: RuntimeMissing) -> str:
    """What to do, then what exactly was found: the command's one error, no traceback."""
    return f"{err.advice}\n{err.details}".rstrip()


class CopilotRoomCommand(JupyterApp):
    name = "jupyter-copilot-room"
    description = "Helpers for jupyter-copilot-room."
    subcommands = {
        "install-runtime": (InstallRuntime, InstallRuntime.description.splitlines()[0]),
    }

    def print_help(self, classes: bool = False) -> None:
        """`--help-all` lists the server extension's configuration (`c.CopilotRoom.*`) too,
        which `jupyter server --help-all` cannot: it loads extensions only when it starts."""
        if classes:
            from .app import CopilotRoom

            self.classes = [*self.classes, CopilotRoom]
        super().print_help(classes)

    def start(self) -> None:
        if self.subapp is None:
            self.print_help()
            self.exit(1)
        else:
            self.subapp.start()


main = launch_instance = CopilotRoomCommand.launch_instance
