"""The git that checkpoints run, kept apart from what a checkpoint is: which repository (or a
git directory of our own in `state_dir`), an index and excludes of our own, an environment that
no `GIT_*` variable of the server's leaks into, and a runner that leaves no git process behind
when the server stops mid-turn. Through it the people's branch and staging area are never
touched, so `checkpoints.py` reaches git only the one safe way.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

COMMITTER = ("jupyter-copilot-room", "copilot-room@localhost")
#: Never checkpointed, also in a repository without a .gitignore for them.
EXCLUDES = (
    ".ipynb_checkpoints/",
    "__pycache__/",
    ".copilot-room/",
    "/copilot-room-exports/",  # where the panel saves exports (labextension/src/exporting.ts)
    "**/.jupyter/collaboration_sessions.json",  # jupyter-collaboration's, at the server's root
)


class GitFailed(Exception):
    pass


async def run_git(*args, stdin: bytes | None = None, **options) -> tuple[int, bytes, bytes]:
    """Run git to its end: exit status, output, errors. Cancelled (the server stops mid-turn),
    its process group is killed (git's own children too: a clean filter such as git-lfs holds
    the pipes open) and reaped before the cancellation goes on: a git process left running
    outlives the event loop ("Event loop is closed"). The spawn is shielded: cancelled while
    asyncio still started git, asyncio killed git alone and waited for its pipes, which git's
    children held for as long as they ran."""
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            **options,
        )
    )
    try:
        proc = await asyncio.shield(spawn)
        out, err = await proc.communicate(stdin)
    except asyncio.CancelledError:
        proc = await spawn
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out, err


def git_environment() -> dict[str, str]:
    """The environment the room's git runs in: the server's without its `GIT_*` variables (a
    hook's `GIT_DIR` would send git elsewhere), our committer, no system config, C messages."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return env | {
        "GIT_COMMITTER_NAME": COMMITTER[0],
        "GIT_COMMITTER_EMAIL": COMMITTER[1],
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
    }


class CheckpointGit:
    """git for the checkpoints of the folder `root`, with its files in `folder`
    (`state_dir/checkpoints`): the index, the excludes, a git directory if `root` is none's."""

    def __init__(self, root: Path, folder: Path):
        self.root = root.resolve()
        self.dir = folder
        self.index = self.dir / "index"
        self.work_tree = self.root  # the repository's top level, once found
        #: The room's folder in the work tree ("." for all of it), once found: checkpoints
        #: hold only its changes, named from it (`in_tree`, `shown`).
        self.scope = "."
        self._env: dict[str, str] | None = None
        self._setting_up = asyncio.Lock()  # one setup, before any other git runs

    @property
    def pathspec(self) -> str:
        return f":(literal){self.scope}"

    def in_tree(self, path: str) -> str:
        """A path as the room names it (from its folder) as the work tree does."""
        return path if self.scope == "." else f"{self.scope}/{path}"

    def shown(self, path: str) -> str:
        """A work tree's path as the room names it (from its folder)."""
        prefix = "" if self.scope == "." else self.scope + "/"
        return path.removeprefix(prefix)

    async def tree_with(self, tree: str, lines: list[str], name: str) -> str:
        """`tree` with the index lines `lines` (`git update-index --index-info`) applied, made
        in a scratch index of its own (`name`) so the room's index stays as it was."""
        if not lines:
            return tree
        scratch = self.dir / name
        try:
            await self.run("read-tree", tree, index=scratch)
            await self.run(
                "update-index", "--index-info", index=scratch, stdin="\n".join(lines).encode()
            )
            return (await self.run("write-tree", index=scratch)).strip()
        finally:
            scratch.unlink(missing_ok=True)

    async def run(
        self, *args: str, index: Path | None = None, stdin: bytes | None = None, env=None
    ) -> str:
        if self._env is None:
            async with self._setting_up:
                if self._env is None:
                    await self._setup()
        assert self._env is not None
        base = self._env
        full = {**base, "GIT_INDEX_FILE": str(index or self.index), **(env or {})}
        status, out, err = await run_git(
            "git",
            "-c",
            f"core.excludesFile={self.dir / 'exclude'}",
            "-c",
            "core.quotePath=false",
            *args,
            cwd=self.work_tree,
            env=full,
            stdin=stdin,
        )
        if status != 0:
            raise GitFailed(err.decode(errors="replace").strip() or f"git {args[0]} failed")
        return out.decode(errors="surrogateescape")

    async def _setup(self) -> None:
        """Find the repository (or make our own git directory) and our index, once."""
        self.dir.mkdir(parents=True, exist_ok=True)
        excludes = list(EXCLUDES)
        env = git_environment()
        status, out, _ = await run_git(
            "git", "rev-parse", "--show-toplevel", cwd=self.root, env=env
        )
        if status == 0:
            self.work_tree = Path(out.decode().strip())
            with contextlib.suppress(ValueError):  # git's top level names it without links
                self.scope = self.root.relative_to(self.work_tree.resolve()).as_posix()
        else:  # not a repository: a git directory of our own, the folder its work tree
            self.work_tree = self.root
            git_dir = self.dir / "git"
            env |= {"GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(self.root)}
            if not git_dir.exists():
                await run_git("git", "init", "-q", env=env)
        with contextlib.suppress(ValueError):  # the state directory, if inside the folder
            excludes.append("/" + self.dir.parent.resolve().relative_to(self.work_tree).as_posix())
        (self.dir / "exclude").write_text("\n".join(excludes) + "\n")
        self._clear_stale_locks()
        self._env = env
        if not self.index.exists() and await self._head_tree():
            await self.run("read-tree", "HEAD")  # tracked files a .gitignore now names stay in

    def _clear_stale_locks(self) -> None:
        """A server killed mid-git leaves a lock on the room's index, a scratch index or a ref of
        its own git directory, and git would refuse every later checkpoint. Only this room
        writes them, and it has not run git yet, so any lock is stale."""
        for lock in [*self.dir.glob("*.lock"), *(self.dir / "git").rglob("*.lock")]:
            lock.unlink(missing_ok=True)

    async def _head_tree(self) -> bool:
        try:
            await self.run("rev-parse", "-q", "--verify", "HEAD^{tree}")
        except GitFailed:
            return False
        return True
