"""The edits, each done one way on a live YNotebook and another on an nbformat notebook.

On a live document an edit runs inside the caller's transaction: a replaced cell keeps its id and
gets a character-level diff; metadata keys are set one by one, so people's own metadata edits
survive. Each edit also says what its approval card shows (a summary and the cell's diff, in
`notebook_diff.py`'s grammar; cells are numbered from 1 there, as people count them).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import nbformat

from .notebook_diff import cell_hunk
from .presence import someone_is_in
from .tools import NotebookToolError


class Edit(ABC):
    @abstractmethod
    def on_live(self, live, meta: dict) -> str: ...

    @abstractmethod
    def on_file(self, notebook, meta: dict) -> str: ...

    @abstractmethod
    def summary(self, path: str, cells: list[dict]) -> str: ...

    def diff(self, cells: list[dict]) -> str:
        return ""

    def cell_id_after(self, live) -> str | None:
        """The cell the agent's cursor should rest on after the edit."""
        return getattr(self, "cell_id", None)


@dataclass
class Insert(Edit):
    index: int
    cell_type: str
    source: str

    def _cell(self, meta: dict) -> dict:
        cell = (
            nbformat.v4.new_code_cell(self.source)
            if self.cell_type == "code"
            else (
                nbformat.v4.new_markdown_cell(self.source)
                if self.cell_type == "markdown"
                else nbformat.v4.new_raw_cell(self.source)
            )
        )
        cell["metadata"] = dict(meta)
        return cell

    def on_live(self, live, meta: dict) -> str:
        _check_index(self.index, live.cell_number, inserting=True)
        cell = self._cell(meta)
        live.ycells.insert(self.index, live.create_ycell(dict(cell)))
        return f"Inserted {self.cell_type} cell {cell['id']} at index {self.index}"

    def cell_id_after(self, live) -> str | None:
        return live.get_cell(self.index).get("id")

    def on_file(self, notebook, meta: dict) -> str:
        _check_index(self.index, len(notebook.cells), inserting=True)
        cell = self._cell(meta)
        notebook.cells.insert(self.index, cell)
        return f"Inserted {self.cell_type} cell {cell['id']} at index {self.index}"

    def summary(self, path: str, cells: list[dict]) -> str:
        return f"insert a {self.cell_type} cell as cell {self.index + 1} in {path}"

    def diff(self, cells: list[dict]) -> str:
        return cell_hunk(self.index + 1, self.cell_type, "added", "", self.source)


@dataclass
class Replace(Edit):
    cell_id: str
    source: str

    def on_live(self, live, meta: dict) -> str:
        index = _index_of(self.cell_id, [live.get_cell(i) for i in range(live.cell_number)])
        ycell = live.ycells[index]
        if someone_is_in(live, ycell["source"]):
            # Never fight a person: same-cell concurrent edits interleave characters.
            beside = Insert(index + 1, ycell["cell_type"], self.source)
            beside.on_live(live, meta)
            self.rests_on = beside.cell_id_after(live)
            return (
                f"Someone is working in cell {self.cell_id}, so it was left alone; the new "
                f"version was inserted below it as cell {self.rests_on}"
            )
        live.set_cell(index, source=self.source)  # a character-level diff; the id stays
        if ycell["cell_type"] == "code":
            ycell["outputs"].clear()
            ycell["execution_count"] = None
        for key, value in meta.items():  # one key: people's own metadata edits survive
            ycell["metadata"][key] = value
        return f"Replaced the source of cell {self.cell_id}"

    def cell_id_after(self, live) -> str | None:
        return getattr(self, "rests_on", self.cell_id)

    def on_file(self, notebook, meta: dict) -> str:
        cell = notebook.cells[_index_of(self.cell_id, notebook.cells)]
        cell["source"] = self.source
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell["metadata"].update(meta)
        return f"Replaced the source of cell {self.cell_id}"

    def summary(self, path: str, cells: list[dict]) -> str:
        return f"replace cell {_index_of(self.cell_id, cells) + 1} ({self.cell_id}) in {path}"

    def diff(self, cells: list[dict]) -> str:
        index = _index_of(self.cell_id, cells)
        cell = cells[index]
        before = source_of(cell)
        return cell_hunk(index + 1, cell.get("cell_type", "code"), "changed", before, self.source)


@dataclass
class Delete(Edit):
    cell_id: str

    def on_live(self, live, meta: dict) -> str:
        index = _index_of(self.cell_id, [live.get_cell(i) for i in range(live.cell_number)])
        del live.ycells[index]
        return f"Deleted cell {self.cell_id}"

    def on_file(self, notebook, meta: dict) -> str:
        del notebook.cells[_index_of(self.cell_id, notebook.cells)]
        return f"Deleted cell {self.cell_id}"

    def summary(self, path: str, cells: list[dict]) -> str:
        return f"delete cell {_index_of(self.cell_id, cells) + 1} ({self.cell_id}) in {path}"

    def diff(self, cells: list[dict]) -> str:
        index = _index_of(self.cell_id, cells)
        cell = cells[index]
        return cell_hunk(index + 1, cell.get("cell_type", "code"), "removed", source_of(cell), "")


@dataclass
class Move(Edit):
    cell_id: str
    index: int

    def on_live(self, live, meta: dict) -> str:
        index = _index_of(self.cell_id, [live.get_cell(i) for i in range(live.cell_number)])
        _check_index(self.index, live.cell_number, inserting=False)
        # pycrdt 0.14 has no Array.move: the cell is re-created, same id and content, at its new
        # place within the same transaction (a cursor inside it does not follow).
        cell = live.get_cell(index)
        cell["metadata"] = {**cell.get("metadata", {}), **meta}
        del live.ycells[index]
        live.ycells.insert(self.index, live.create_ycell(cell))
        return f"Moved cell {self.cell_id} to index {self.index}"

    def on_file(self, notebook, meta: dict) -> str:
        index = _index_of(self.cell_id, notebook.cells)
        _check_index(self.index, len(notebook.cells), inserting=False)
        cell = notebook.cells.pop(index)
        cell["metadata"].update(meta)
        notebook.cells.insert(self.index, cell)
        return f"Moved cell {self.cell_id} to index {self.index}"

    def summary(self, path: str, cells: list[dict]) -> str:
        return f"move cell {self.cell_id} to be cell {self.index + 1} in {path}"


def _check_index(index: int, count: int, *, inserting: bool) -> None:
    top = count if inserting else count - 1
    if index > top:
        raise NotebookToolError(
            f"`index` {index} is out of range: the notebook has {count} cells. Read it again."
        )


def _index_of(cell_id: str, cells) -> int:
    for index, cell in enumerate(cells):
        if cell.get("id") == cell_id:
            return index
    raise NotebookToolError(
        f"There is no cell {cell_id!r} (it may have been deleted); read the notebook again."
    )


def source_of(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source
