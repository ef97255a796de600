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
    plain = [path for path in changed if path not in set(notebooks(changed))]
    theirs = [p for p in plain if p not in wrote and (p in saved or not ran_code)]
    unnamed = tuple(p for p in plain if p not in wrote and p not in saved and ran_code)
    if not theirs:
        return after, unnamed
    lines = []
    for path in theirs:
        entry = (await git.run("ls-tree", before, "--", path)).strip()
        if entry:  # mode type blob\tpath: as it was
            mode, _, blob = entry.split("\t", 1)[0].split()
            lines.append(f"{mode} {blob}\t{path}")
        else:  # the person added it
            lines.append(_REMOVED.format(path=path))
    scratch = git.dir / "files.index"
    try:
        await git.run("read-tree", after, index=scratch)
        await git.run(
            "update-index", "--index-info", index=scratch, stdin="\n".join(lines).encode()
        )
        return (await git.run("write-tree", index=scratch)).strip(), unnamed
    finally:
        scratch.unlink(missing_ok=True)
