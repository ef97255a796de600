"""The room in Slack: `c.CopilotRoom.slack`, the bridge core (`fronts/chat/`) over Slack's own SDK
(Socket Mode and the Web API); `slack_service.py` is the only module that imports it."""
