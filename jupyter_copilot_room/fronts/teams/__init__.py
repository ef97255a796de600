"""The room in Microsoft Teams: the Teams adapter of the chat bridge (`fronts/chat/`)."""
