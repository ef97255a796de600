"""A shared room in which several people drive one GitHub Copilot agent from Jupyter."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("jupyter-copilot-room")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "jupyter-copilot-room"}]


def _jupyter_server_extension_points():
    from .app import CopilotRoom

    return [{"module": "jupyter_copilot_room", "app": CopilotRoom}]
