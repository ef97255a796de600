"""Side threads: a room's conversation forked at a turn, tried out privately, brought back.

A thread is a room of its own (`Room`, built like every room by `app.py`) on a git worktree of
the room's repository, whose agent resumes a fork of the room's session (`Agent.fork`); its
admissions are the room's hosts, its owner and the people the owner added
(`access/thread_admissions.py`). The threads of one room are `RoomThreads` (`room_threads.py`):
their records (`thread_records.py`), the fork point (`fork_point.py`), the worktrees
(`worktree.py`), bringing one back (`promotion.py`). The REST routes and the websocket are
`handlers/threads.py`.
"""

from .room_threads import RoomThreads, ThreadFactory, ThreadRegistry

__all__ = ["RoomThreads", "ThreadFactory", "ThreadRegistry"]
