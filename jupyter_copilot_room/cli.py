"""`jupyter copilot-room ...`: command-line helpers for the room."""

from __future__ import annotations

import asyncio
from pathlib import Path

from jupyter_core.application import JupyterApp
from jupyter_server.config_manager import BaseJSONConfigManager
from traitlets import Bool, TraitError, Unicode, default
from traitlets.config import Config

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


class Doctor(JupyterApp):
    description = (
        "Check the setup the server reads (jupyter_server_config in the Jupyter config path, "
        "or --config): the Copilot runtime and login, each configured front (GitHub, Slack, "
        "Teams) and ACP agent, one line each and what to do when something cannot work; no "
        "secret is printed. Exit status 1 when something configured cannot work."
    )

    @default("config_file_name")
    def _server_config(self) -> str:
        return "jupyter_server_config"

    def start(self) -> None:
        from .app import CopilotRoom
        from .doctor import Check, Setup, examine, report

        config = self._server_configuration()
        try:
            setup = Setup.of(CopilotRoom(config=config), config.ServerApp)
        except (TraitError, ValueError) as wrong:
            checks = [
                Check("Configuration", False, str(wrong), "correct it; the server will not start")
            ]
        else:
            checks = asyncio.run(examine(setup))
        print(report(checks))
        self.exit(0 if all(check.ok for check in checks) else 1)

    def _server_configuration(self) -> Config:
        """The server's configuration as it reads it: the extensions' `jupyter_server_config.d`
        files first (the config path's first directory wins), then the files and options this
        command loaded, which win over them."""
        found = Config()
        for directory in reversed(self.config_file_paths):
            files = BaseJSONConfigManager(config_dir=directory)
            found.merge(Config(files.get("jupyter_server_config", include_root=False)))
        found.merge(self.config)
        server = found.ServerApp
        if "root_dir" in server and "repository" not in found.CopilotRoom:
            found.CopilotRoom.repository = server.root_dir  # the server's default
        return found


class CopilotRoomCommand(JupyterApp):
    name = "jupyter-copilot-room"
    description = "Helpers for jupyter-copilot-room."
    subcommands = {
        "install-runtime": (InstallRuntime, InstallRuntime.description.splitlines()[0]),
        "doctor": (Doctor, Doctor.description.splitlines()[0]),
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
