"""The fronts outside Jupyter: the chat core (`chat/`) and its services (`slack/`, `teams/`),
and the room on a pull request (`github/`). Each is a client of the API (`api/`) and nothing
else; `server_fronts.py` builds and starts them from `c.CopilotRoom.github`, `.slack`, `.teams`
(`front_settings.py`)."""
