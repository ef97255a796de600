"""An older notebook turn reverts cell by cell: later turns' cells, people's runs and edits
elsewhere survive; a cell someone edited since is a conflict naming it. Checkpoints on a real
git repository, the notebooks written as Jupyter saves them."""

import copy

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_copilot_room.checkpoints.cell_revert import revert_cells
from jupyter_copilot_room.errors import Conflict
from jupyter_copilot_room.notebooks.open_notebooks import as_saved
from jupyter_copilot_room.notebooks.tools import METADATA_KEY

from .test_checkpoint_outputs import ALICE, cells, code, notebook, save, setup


async def turn(checkpoints, prompt_id, change, deleted=frozenset()):
    """A turn making `change`; the agent's notebook tools deleted the cells in `deleted`."""
    checkpoints.turn_started(prompt_id)
    await checkpoints.started(prompt_id)
    change()
    return await checkpoints.turn_ended(prompt_id, ALICE, prompt_id, deleted=deleted)


def agents(cell_id, source, printed=None, prompt_id="p1"):
    cell = code(cell_id, source, printed, 1 if printed else None)
    cell.metadata[METADATA_KEY] = {"prompt_id": prompt_id}
    if printed:
        cell.metadata[METADATA_KEY]["ran"] = {"prompt_id": prompt_id}
    return cell


async def test_an_older_turn_reverts_after_a_later_turn_added_a_cell_and_someone_ran_one(
    tmp_path,
):
    work, checkpoints = setup(tmp_path)
    path = work / "nb.ipynb"
    nb = notebook(code("a", "x = 1"), code("b", "print('people')"), code("c", "y = 2"))
    save(path, nb)

    def first():  # the agent rewrites a, inserts e below it and deletes c
        nb.cells = [agents("a", "x = 10"), agents("e", "w = 5"), nb.cells[1]]
        save(path, nb)

    def second():  # the agent inserts d right below a; a person runs b meanwhile
        ran = code("b", "print('people')", "people\n", 4)
        nb.cells = [nb.cells[0], agents("d", "z = 3", prompt_id="p2"), nb.cells[1], ran]
        save(path, nb)

    older = await turn(checkpoints, "p1", first, deleted=frozenset({"c"}))
    assert await turn(checkpoints, "p2", second) is not None
    await checkpoints.revert(older.commit, ALICE)
    assert list(cells(path.read_bytes()).items()) == [
        ("a", ("x = 1", [])),  # the older turn's edit undone
        ("d", ("z = 3", [])),  # the later turn's cell kept; the older turn's e is gone
        ("b", ("print('people')", ["people\n"])),  # the person's run kept
        ("c", ("y = 2", [])),  # the deleted cell back, after the cell that preceded it
    ]


async def test_a_cell_someone_edited_since_is_a_conflict_naming_it(tmp_path):
    work, checkpoints = setup(tmp_path)
    path = work / "nb.ipynb"
    nb = notebook(code("a", "x = 1"), code("b", "total = 0"))
    save(path, nb)

    def change():
        nb.cells[0] = agents("a", "x = 10")
        save(path, nb)

    checkpoint = await turn(checkpoints, "p1", change)
    nb.cells[0] = code("a", "x = 11  # bob's idea")
    save(path, nb)
    edited = path.read_bytes()
    with pytest.raises(Conflict, match=r"nb\.ipynb.*: cell 1 \(x = 11") as refused:
        await checkpoints.revert(checkpoint.commit, ALICE)
    assert refused.value.code == "revert_conflict"
    assert path.read_bytes() == edited, "nothing was changed"
    assert nbformat.reads(edited.decode(), as_version=4).cells[1].source == "total = 0"

    # A host's "revert anyway": the turn's cell as it was before the turn, the rest kept.
    await checkpoints.revert(checkpoint.commit, ALICE, force=True)
    assert list(cells(path.read_bytes()).items()) == [
        ("a", ("x = 1", [])),
        ("b", ("total = 0", [])),
    ]


SOURCES = st.text(alphabet="abcxyz =+1\n", max_size=12)


@st.composite
def turns(draw):
    """A notebook, a turn's change to it (cells inserted, edited and run, deleted)
    and cells people added or ran since, away from the turn's cells."""
    count = draw(st.integers(0, 6))
    start = notebook(*(code(f"c{i}", draw(SOURCES)) for i in range(count)))
    cells = list(start.cells)
    for cell in list(cells):
        action = draw(st.sampled_from(["keep", "edit", "delete"]))
        if action == "edit":
            cells[cells.index(cell)] = agents(cell.id, draw(SOURCES) + "!", "ran\n")
        elif action == "delete":
            cells.remove(cell)
    for n in range(draw(st.integers(0, 3))):
        cells.insert(draw(st.integers(0, len(cells))), agents(f"new{n}", draw(SOURCES)))
    end = notebook(*cells)
    untouched = {c.id for c in start.cells} & {c.id for c in end.cells if "!" not in c.source}
    since = [copy.deepcopy(c) for c in end.cells]
    for i, cell in enumerate(since):
        if cell.id in untouched and draw(st.booleans()):
            since[i] = code(cell.id, cell.source, "people\n", 7)  # a person's run
    for n in range(draw(st.integers(0, 2))):
        since.insert(draw(st.integers(0, len(since))), code(f"later{n}", draw(SOURCES)))
    return start, end, notebook(*since)


@given(turns())
@settings(max_examples=150, deadline=None)
def test_a_revert_undoes_the_turn_and_keeps_what_came_since(case):
    start, end, since = case
    reverted = revert_cells(as_saved(start), as_saved(end), as_saved(since))
    assert reverted is not None
    got = nbformat.reads(reverted.decode(), as_version=4)
    later = {c.id: c for c in since.cells if c.id.startswith("later")}
    # Without the later cells, the notebook is as the turn found it, but for people's runs.
    kept = [c for c in got.cells if c.id not in later]
    assert [(c.id, c.source) for c in kept] == [(c.id, c.source) for c in start.cells]
    runs = {c.id for c in since.cells if c.get("execution_count") == 7}  # people's runs
    assert {c.id for c in got.cells if c.get("execution_count") == 7} == runs, "runs survive"
    assert [c.id for c in got.cells if c.id in later] == list(later), "later cells, in order"
