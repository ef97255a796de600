"""The agent side of the room: the prompt queue, the permission router and the agent seam."""
