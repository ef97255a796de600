"""The room's REST commands, under `<base_url>copilot-room/api/`, one module per resource as
jupyter_server lays out its services: `base.py` holds what every handler shares (the room a
route names, the caller, the error format), `routes.py` the route table `app.py` serves.
"""
