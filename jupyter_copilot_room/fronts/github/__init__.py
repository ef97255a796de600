"""The room on a pull request: a front that turns PR comments into the room's tasks, and the
Copilot seat check at the door. Both speak GitHub's REST API through `github_rest.py`, the only
module that imports githubkit."""
