"""A shared room in which several people drive one GitHub Copilot agent from Jupyter."""

import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .widget import RoomWidget

#: The version's one source (pyproject.toml's `[tool.hatch.version]`), in a source checkout.
_SOURCE = Path(__file__).parents[1] / "labextension" / "package.json"

if _SOURCE.is_file():  # a checkout (an editable install's metadata lags behind a bump)
    __version__ = json.loads(_SOURCE.read_text(encoding="utf-8"))["version"]
else:
    try:
        __version__ = version("jupyter-copilot-room")
    except PackageNotFoundError:  # pragma: no cover - neither installed nor a checkout
        __version__ = "0.0.0"


def connect(url: str | None = None, token: str | None = None):
    """The Copilot room of the Jupyter server this kernel runs under (see `kernel.discovery`)."""
    from .kernel import connect as connect_room

    return connect_room(url, token)


def load_ipython_extension(ipython) -> None:
    """`%load_ext jupyter_copilot_room`: the `%%copilot` cell magic."""
    from .kernel.magic import load_ipython_extension as load

    load(ipython)


def __getattr__(name: str) -> "type[RoomWidget]":
    """`RoomWidget` is imported on first use: the server never imports ipywidgets."""
    if name == "RoomWidget":
        from .widget import RoomWidget

        return RoomWidget
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "jupyter-copilot-room"}]


def _jupyter_server_extension_points():
    from .app import CopilotRoom

    return [{"module": "jupyter_copilot_room", "app": CopilotRoom}]
