"""The room: its people, turns, requests, transcript, live document and sync, behind one facade."""
