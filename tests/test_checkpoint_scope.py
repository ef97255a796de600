"""A room in a folder of a larger repository (the example inside a clone, rooms created side by
side in one repository): its checkpoints hold its own folder's changes, named as the room names
its files, and its reverts touch nothing outside it."""

import subprocess

from jupyter_copilot_room.checkpoints.turn_checkpoints import Author, Checkpoints
from jupyter_copilot_room.notebooks.open_notebooks import as_saved

ALICE = Author("alice", "Alice")


def git(folder, *args):
    subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=A", "-c", "user.email=a@x", *args],
        check=True,
        capture_output=True,
    )


def notebook(source: str, said: str | None = None) -> bytes:
    """A notebook as Jupyter saves it, one code cell with what it printed."""
    outputs = [{"output_type": "stream", "name": "stdout", "text": said}] if said else []
    cell = {"cell_type": "code", "id": "c1", "metadata": {}, "source": source}
    cell |= {"execution_count": 1 if said else None, "outputs": outputs}
    return as_saved({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def a_repository_with_two_rooms(tmp_path):
    top = tmp_path / "repository"
    for room in ("north", "south"):
        (top / room).mkdir(parents=True)
        (top / room / "notes.txt").write_text(f"{room} as committed\n")
    (top / "north" / "nb.ipynb").write_bytes(notebook("x = 1"))
    git(top, "init", "-q")
    git(top, "add", ".")
    git(top, "commit", "-qm", "start")
    return top


async def test_a_rooms_checkpoint_holds_its_folder_only_and_names_files_from_it(tmp_path):
    top = a_repository_with_two_rooms(tmp_path)
    north = Checkpoints(top / "north", tmp_path / "state")
    north.turn_started("p1")
    await north.started("p1")
    (top / "north" / "notes.txt").write_text("north changed by its turn\n")
    (top / "south" / "notes.txt").write_text("south changed meanwhile by its own room\n")
    made = await north.turn_ended("p1", ALICE, "edit the notes")

    assert made is not None and made.files == ("notes.txt",)
    diff = await north.diff(made.commit)
    assert "a/notes.txt" in diff and "north changed by its turn" in diff
    assert "south" not in diff

    await north.revert(made.commit, ALICE)
    assert (top / "north" / "notes.txt").read_text() == "north as committed\n"
    assert (top / "south" / "notes.txt").read_text() == "south changed meanwhile by its own room\n"


async def test_a_notebook_the_agent_wrote_in_a_rooms_folder_is_its_change_whole(tmp_path):
    top = a_repository_with_two_rooms(tmp_path)
    north = Checkpoints(top / "north", tmp_path / "state")
    north.turn_started("p1")
    await north.started("p1")
    (top / "north" / "nb.ipynb").write_bytes(notebook("x = 1", said="written by the agent"))
    # The room names the file as the agent's write request did: from the room's folder. Were it
    # not known as written whole, its outputs would count as a person's run, not the turn's.
    made = await north.turn_ended("p1", ALICE, "rewrite it", wrote=frozenset({"nb.ipynb"}))
    assert made is not None and made.files == ("nb.ipynb",)
    kept = await north.git.run("cat-file", "blob", f"{made.commit}:north/nb.ipynb")
    assert "written by the agent" in kept
