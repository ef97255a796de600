"""The agent's share of a turn's plain files (notebooks have theirs cell by cell,
`checkpoint_notebooks.agents_share`): a turn's checkpoint, and so its revert, holds only what the
agent changed, never a person's work saved meanwhile.

- A file the agent's write or edit tools named (`wrote`) is its own.
- A file a person saved through Jupyter's contents API during the turn (`saved`) is theirs.
- Any other change is the agent's only if it ran code (a shell command, a notebook cell) during
  the turn, which may change any file; such files are named, so the checkpoint says they changed
  "while the agent's shell ran". A turn that ran no code changed nothing it did not name.
"""

from __future__ import annotations

from .checkpoint_git import CheckpointGit
from .checkpoint_notebooks import notebooks

#: An index line that removes its path (`git update-index --index-info`).
_REMOVED = "0 " + "0" * 40 + "\t{path}"


async def agents_files(
    git: CheckpointGit,
    before: str,
    after: str,
    changed: tuple[str, ...],
    wrote: frozenset[str],
    saved: frozenset[str],
    ran_code: bool,
) -> tuple[str, tuple[str, ...]]:
    """`after` with every plain file the turn may not claim put back as `before` had it, and
    the files it keeps that it did not name (changed while its code ran), all as work-tree
    paths."""
    kept = wrote | set(notebooks(changed))  # notebooks: their share is cell by cell
    others = [path for path in changed if path not in kept]
    theirs = [path for path in others if path in saved or not ran_code]
    unnamed = tuple(path for path in others if path not in theirs)
    if not theirs:
        return after, unnamed
    listed = await git.run("ls-tree", "-z", before, "--", *theirs)  # one git for them all
    was = {}
    for entry in filter(None, listed.split("\0")):  # mode type blob\tpath
        info, path = entry.split("\t", 1)
        mode, _, blob = info.split()
        was[path] = f"{mode} {blob}\t{path}"
    # As each was; one the person added goes.
    lines = [was.get(path) or _REMOVED.format(path=path) for path in theirs]
    return await git.tree_with(after, lines, "files.index"), unnamed
