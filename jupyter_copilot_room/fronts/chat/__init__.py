"""The room where a team already talks (Slack, later Teams): one bridge core that decides the
prompts, the mirror of each turn, the cards and who is who once, over a `ChatService` each
service's adapter implements (`fronts/slack/`). A front on the in-process API (`api/`)."""
