"""`jupyter copilot-room ...`: command-line helpers for the room."""

from __future__ import annotations

from jupyter_core.application import JupyterApp

from .agent.runtime import RUNTIME_VERSION, RuntimeMissing, install_runtime


class InstallRuntime(JupyterApp):
    description = (
        f"Install the pinned Copilot runtime ({RUNTIME_VERSION}) from the npm registry into the "
        "room's cache directory, for machines that cannot reach the SDK's own download."
    )

    def start(self) -> None:
        try:
            binary = install_runtime()
        except RuntimeMissing as err:
            self.exit(str(err))
        print(f"Copilot runtime {RUNTIME_VERSION} installed: {binary}")
        print("A running room finds it when a host presses Try again in the panel.")


class CopilotRoomCommand(JupyterApp):
    name = "jupyter-copilot-room"
    description = "Helpers for jupyter-copilot-room."
    subcommands = {
        "install-runtime": (InstallRuntime, InstallRuntime.description.splitlines()[0]),
    }

    def start(self) -> None:
        if self.subapp is None:
            self.print_help()
            self.exit(1)
        else:
            self.subapp.start()


main = launch_instance = CopilotRoomCommand.launch_instance
