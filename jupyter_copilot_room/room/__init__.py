"""The room itself: its transcript, its live document, its sync and its orchestration."""
