"""The room in Microsoft Teams: the Teams adapter of the chat bridge (`bridges/`)."""
