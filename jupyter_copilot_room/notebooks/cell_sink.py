"""Where a cell's outputs go while it runs, and how a kernel's messages become them. The shared
notebook is the one place everyone sees a run, so outputs are written into it as they arrive
(streams joined the way JupyterLab joins them, `clear_output` honoured), or into the file's cell
when nobody has the notebook open; the model is told about the same outputs. Kept apart from
the kernel's control (`execution.py`) because it owns the notebook's side only.
"""

from __future__ import annotations

import copy

import nbformat
from pycrdt import Map, Text

from .tools import METADATA_KEY


class CellSink:
    """Where one cell's outputs go as they arrive: the live shared cell or a file's cell."""

    def __init__(self, live, cell: dict | None, cell_id: str, ran: dict):
        self.live, self.cell, self.cell_id, self.ran = live, cell, cell_id, ran
        self.outputs: list[dict] = []  # what the model is told about
        self._clear_on_next = False

    def _ycell(self):
        for index in range(self.live.cell_number):
            ycell = self.live.ycells[index]
            if ycell.get("id") == self.cell_id:
                return ycell
        return None  # deleted meanwhile: the outputs still reach the model

    def start(self) -> None:
        if self.live is None:
            assert self.cell is not None
            self.cell["outputs"], self.cell["execution_count"] = [], None
            self.cell["metadata"][METADATA_KEY] = {
                **self.cell["metadata"].get(METADATA_KEY, {}),
                "ran": self.ran,
            }
            return
        with self.live.ydoc.transaction():
            if (ycell := self._ycell()) is None:
                return
            ycell["outputs"].clear()
            ycell["execution_count"] = None
            ycell["execution_state"] = "busy"
            before = ycell["metadata"].get(METADATA_KEY)
            before = before if isinstance(before, dict) else {}
            ycell["metadata"][METADATA_KEY] = {**before, "ran": self.ran}

    def add(self, output: dict) -> None:
        if self._clear_on_next:
            self.clear(wait=False)
        self.outputs.append(output)
        if self.live is None:
            assert self.cell is not None
            _append_plain(self.cell["outputs"], output)
            return
        with self.live.ydoc.transaction():
            if (ycell := self._ycell()) is not None:
                _append_live(ycell["outputs"], output)

    def clear(self, *, wait: bool) -> None:
        if wait:
            self._clear_on_next = True
            return
        self._clear_on_next = False
        self.outputs.clear()
        if self.live is None:
            assert self.cell is not None
            self.cell["outputs"] = []
            return
        with self.live.ydoc.transaction():
            if (ycell := self._ycell()) is not None:
                ycell["outputs"].clear()

    def finish(self, execution_count: int | None) -> None:
        if self.live is None:
            assert self.cell is not None
            self.cell["execution_count"] = execution_count
            return
        with self.live.ydoc.transaction():
            if (ycell := self._ycell()) is not None:
                ycell["execution_count"] = execution_count
                ycell["execution_state"] = "idle"


def _append_live(youtputs, output: dict) -> None:
    """Append an output as JupyterLab would: a stream continues the last one of its name."""
    if output["output_type"] == "stream" and len(youtputs):
        last = youtputs[len(youtputs) - 1]
        if last.get("output_type") == "stream" and last.get("name") == output["name"]:
            text = last["text"]
            if hasattr(text, "insert"):
                text.insert(len(text), output["text"])
                return
    youtputs.append(youtput(output))


def youtput(output: dict) -> Map:
    """An output as the shared notebook holds it (jupyter_ydoc's layout, which JupyterLab reads):
    a Map, a stream's text a Text that later chunks of the stream are inserted into."""
    output = copy.deepcopy(output)
    if output.get("output_type") == "stream":
        text = output.get("text", "")
        output["text"] = Text(text if isinstance(text, str) else "".join(text))
    return Map(output)


def _append_plain(outputs: list, output: dict) -> None:
    if output["output_type"] == "stream" and outputs:
        last = outputs[-1]
        if last.get("output_type") == "stream" and last.get("name") == output["name"]:
            last["text"] = last["text"] + output["text"]
            return
    outputs.append(nbformat.from_dict(output))


class RunningCell:
    """One cell's execution as its iopub messages say: outputs to the sink, count, status."""

    def __init__(self, msg_id: str, sink: CellSink):
        self.msg_id, self.sink = msg_id, sink
        self.count: int | None = None
        self.status = "ok"
        self.done = False

    def take(self, msg: dict) -> None:
        if msg["parent_header"].get("msg_id") != self.msg_id:
            return  # someone else's request, or our own kernel_info
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content.get("execution_state") == "idle":
            self.done = True
        elif kind == "execute_input":
            self.count = content.get("execution_count")
        elif kind == "clear_output":
            self.sink.clear(wait=bool(content.get("wait")))
        elif kind in ("stream", "display_data", "execute_result", "error"):
            output = dict(nbformat.v4.output_from_msg(msg))
            output.pop("transient", None)
            if kind == "error":
                self.status = "error"
            self.sink.add(output)
