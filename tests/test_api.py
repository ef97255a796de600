"""The REST contract under `<base_url>copilot-room/api/`, for every role."""

import json

import pytest

from .harness.helpers import eventually, replies

ADMITTED = ["alice", "bob", "carol"]


async def test_room_tells_each_person_their_role_and_actions(api):
    alice = (await api("alice", "GET", "room")).json
    assert alice["me"]["role"] == "host"
    assert {"submit", "abort", "manage_people", "answer_any"} <= set(alice["me"]["can"])
    bob = (await api("bob", "GET", "room")).json
    assert bob["me"]["role"] == "member"
    assert "submit" in bob["me"]["can"] and "abort" not in bob["me"]["can"]
    carol = (await api("carol", "GET", "room")).json
    assert carol["me"] == {**carol["me"], "role": "viewer", "can": ["watch"], "verified": True}
    assert "queue" in carol


async def test_pending_person_gets_only_their_own_status(api):
    dave = await api("dave", "GET", "room")
    assert dave.code == 200
    assert dave.json == {"me": {**dave.json["me"], "username": "dave", "role": "pending"}}
    assert dave.json["me"]["can"] == []


async def test_unauthenticated_requests_are_refused(api):
    r = await api(None, "GET", "room")
    assert r.code == 403


@pytest.mark.parametrize(
    ("user", "status"), [("alice", 202), ("bob", 202), ("carol", 403), ("dave", 403)]
)
async def test_who_may_submit_a_prompt(api, user, status):
    r = await api(user, "POST", "prompts", body={"text": "say hello"})
    assert r.code == status, r
    if status == 202:
        assert set(r.json) == {"id", "position"}
    else:
        assert r.json["error"] in ("forbidden", "not_admitted")


async def test_prompt_runs_and_streams_into_the_transcript(api, room):
    r = await api("bob", "POST", "prompts", body={"text": "say hello there"})
    assert r.json["position"] == 0
    await eventually(
        lambda: (
            room.turns.queue.in_flight is None
            and room.document.meta.get("state") == "idle"
            and len(replies(room)) >= 1
        )
    )
    entries = room.document.transcript.to_py()
    assert [e["kind"] for e in entries][-2:] == ["prompt", "assistant"]
    assert entries[-2]["author"] == "bob" and entries[-2]["state"] == "completed"
    assert entries[-1]["body"] == "hello there"


async def test_second_prompt_waits_for_the_first(api, room, agent):
    first = (await api("alice", "POST", "prompts", body={"text": "wait"})).json
    second = (await api("bob", "POST", "prompts", body={"text": "say after"})).json
    assert (first["position"], second["position"]) == (0, 1)
    await eventually(lambda: len(agent.turns) == 1)
    agent.release.set()
    await eventually(lambda: len(agent.turns) == 2)
    assert [t.author for t in agent.turns] == ["alice", "bob"]
    # Not just for a moment: the transcript, in the order the room did things, has the second
    # prompt start only after the first finished (a prompt's start is recorded before it is sent).
    records = [json.loads(line) for line in room.transcript.read_text().split("\n") if line]
    order = [(r["kind"], r["payload"].get("id")) for r in records]
    assert order.index(("prompt.started", second["id"])) > order.index(
        ("prompt.finished", first["id"])
    ), "the second prompt must not start while the first runs"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"text": ""}, 400, "empty_prompt"),
        ({"text": "   \n"}, 400, "empty_prompt"),
        ({"text": "x" * 20_001}, 413, "prompt_too_long"),
        ({"text": "hi", "author": "alice"}, 400, "invalid_body"),
        ({"text": "hi", "target": {"kind": "tool", "name": "x"}}, 400, "invalid_body"),
        ({}, 400, "invalid_body"),
        ([], 400, "invalid_body"),
    ],
)
async def test_bad_prompts_get_a_clear_error(api, body, status, code):
    r = await api("bob", "POST", "prompts", body=body)
    assert (r.code, r.json["error"]) == (status, code), r
    assert r.json["message"]


async def test_malformed_json_is_a_400(api):
    r = await api("bob", "POST", "prompts", raw="{not json")
    assert (r.code, r.json["error"]) == (400, "malformed_json")


async def test_prompt_target_is_kept(api, room, jp_root_dir):
    skill = jp_root_dir / ".github" / "skills" / "review" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: review\ndescription: Reviews\n---\nRead the diff.\n")
    await api("alice", "POST", "prompts", body={"text": "wait"})
    r = await api(
        "bob",
        "POST",
        "prompts",
        body={"text": "review", "target": {"kind": "skill", "name": "review"}},
    )
    queued = room.document.queue.to_py()
    assert queued[1]["target"] == {"kind": "skill", "name": "review"}
    assert queued[1]["id"] == r.json["id"]


async def _blocked_queue(api):
    """alice's prompt runs (held), bob's waits behind it."""
    running = (await api("alice", "POST", "prompts", body={"text": "wait"})).json["id"]
    waiting = (await api("bob", "POST", "prompts", body={"text": "say later"})).json["id"]
    return running, waiting


async def test_author_withdraws_own_waiting_prompt(api, room):
    _, waiting = await _blocked_queue(api)
    r = await api("bob", "DELETE", "prompts", waiting)
    assert r.code == 204
    assert waiting not in [item["id"] for item in room.document.queue.to_py()]
    lines = [(e["body"], e.get("people")) for e in room.document.transcript.to_py()]
    assert ("{0} withdrew their prompt.", ["bob"]) in lines, "it left the queue without a word"


async def test_member_cannot_withdraw_someone_elses_prompt(api):
    _, waiting = await _blocked_queue(api)
    await api("erin", "GET", "room")
    r = await api("carol", "DELETE", "prompts", waiting)
    assert r.code == 403
    r2 = await api("alice", "POST", "prompts", body={"text": "say mine"})
    r = await api("bob", "DELETE", "prompts", r2.json["id"])
    assert (r.code, r.json["error"]) == (403, "not_your_prompt")


async def test_host_withdraws_anyones_waiting_prompt(api, room):
    _, waiting = await _blocked_queue(api)
    r = await api("alice", "DELETE", "prompts", waiting)
    assert r.code == 204
    lines = [(e["body"], e.get("people")) for e in room.document.transcript.to_py()]
    assert ("{0} withdrew {1}'s prompt.", ["alice", "bob"]) in lines


async def test_running_or_unknown_prompt_cannot_be_withdrawn(api):
    running, _ = await _blocked_queue(api)
    r = await api("alice", "DELETE", "prompts", running)
    assert (r.code, r.json["error"]) == (409, "not_pending")
    r = await api("alice", "DELETE", "prompts", "nope")
    assert (r.code, r.json["error"]) == (404, "prompt_not_found")


async def _approval(api, room, author="bob", command="rm -rf build"):
    await api(author, "POST", "prompts", body={"text": f"shell {command}"})
    await eventually(lambda: len(room.document.approvals) == 1, what="an approval card")
    [(request_id, card)] = room.document.approvals.to_py().items()
    return request_id, card


async def test_approval_card_names_the_command_and_author(api, room):
    _, card = await _approval(api, room)
    assert card["kind"] == "shell"
    assert card["summary"] == "rm -rf build"
    assert card["author"] == "bob"
    assert card["state"] == "pending"
    assert room.document.queue.to_py()[0]["state"] == "input-required"


async def test_author_approves_and_the_command_runs(api, room, agent):
    request_id, _ = await _approval(api, room)
    r = await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 200
    await eventually(lambda: agent.answers)
    assert agent.answers[0].approved and "bob" in agent.answers[0].text
    await eventually(lambda: room.turns.queue.in_flight is None)
    kinds = [e["kind"] for e in room.document.transcript.to_py()]
    assert "tool" in kinds


async def test_permission_answered_by_a_member_who_is_not_the_author_is_refused(api, room):
    await api("erin", "GET", "room")
    request_id, _ = await _approval(api, room, author="alice")
    r = await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    assert (r.code, r.json["error"]) == (403, "not_your_request")
    assert r.json["message"].startswith("Only Alice (who asked for this turn)"), r.json  # her name
    r = await api("carol", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 403
    assert room.document.approvals.to_py()[request_id]["state"] == "pending"


async def test_host_rejects_someone_elses_request_and_the_model_hears_why(api, room, agent):
    request_id, _ = await _approval(api, room, author="bob")
    r = await api(
        "alice",
        "POST",
        "approvals",
        request_id,
        body={"decision": "reject", "feedback": "not on main"},
    )
    assert r.code == 200
    await eventually(lambda: agent.answers)
    assert not agent.answers[0].approved
    assert agent.answers[0].text == "Rejected by alice: not on main"


async def test_second_answer_is_refused_and_cannot_reopen(api, room, agent):
    request_id, _ = await _approval(api, room)
    await api("bob", "POST", "approvals", request_id, body={"decision": "reject"})
    r = await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
    assert (r.code, r.json["error"]) == (409, "already_settled")
    await eventually(lambda: agent.answers)
    assert [a.approved for a in agent.answers] == [False]


@pytest.mark.parametrize("room_config", [{"permission_timeout": 0.2}])
async def test_unanswered_permission_times_out_as_a_recorded_rejection(api, room, agent):
    request_id, _ = await _approval(api, room)
    await eventually(lambda: agent.answers, timeout=3)
    assert not agent.answers[0].approved
    assert "Nobody answered" in agent.answers[0].text
    records = [json.loads(line) for line in room.transcript.read_text().splitlines()]
    settled = [r for r in records if r["kind"] == "request.settled"]
    payload = {"id": request_id, "outcome": "timed_out", "approvers": []}
    assert settled == [{**settled[0], "payload": payload}]
    r = await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    assert (r.code, r.json["error"]) == (409, "already_settled")


async def test_bad_approval_bodies(api, room):
    request_id, _ = await _approval(api, room)
    r = await api("bob", "POST", "approvals", request_id, body={"decision": "maybe"})
    assert (r.code, r.json["error"]) == (400, "invalid_body")
    r = await api("bob", "POST", "approvals", "unknown", body={"decision": "approve"})
    assert (r.code, r.json["error"]) == (404, "request_not_found")
    r = await api("bob", "POST", "questions", request_id, body={"answer": "yes"})
    assert r.code == 404


async def test_question_is_answered_by_its_author(api, room, agent):
    await api("bob", "POST", "prompts", body={"text": "ask continue?"})
    await eventually(lambda: len(room.document.approvals) == 1)
    [(question_id, card)] = room.document.approvals.to_py().items()
    assert (card["kind"], card["choices"]) == ("question", ["yes", "no"])
    r = await api("carol", "POST", "questions", question_id, body={"answer": "yes"})
    assert r.code == 403
    r = await api("bob", "POST", "questions", question_id, body={"answer": "perhaps"})
    assert (r.code, r.json["error"]) == (400, "invalid_choice")
    r = await api("bob", "POST", "questions", question_id, body={"answer": "yes"})
    assert r.code == 200
    await eventually(lambda: agent.answers)
    assert agent.answers[0].approved and agent.answers[0].text == "yes"


@pytest.mark.parametrize(("user", "status"), [("bob", 403), ("carol", 403), ("dave", 403)])
async def test_only_hosts_abort(api, user, status):
    await api("alice", "POST", "prompts", body={"text": "wait"})
    r = await api(user, "POST", "abort")
    assert r.code == status


async def test_host_aborts_the_running_turn_and_the_queue_goes_on(api, room, agent):
    running, waiting = await _blocked_queue(api)
    await eventually(lambda: agent.turns)
    r = await api("alice", "POST", "abort")
    assert r.code == 200
    await eventually(lambda: len(agent.turns) == 2)
    records = [json.loads(line) for line in room.transcript.read_text().splitlines()]
    finished = [r["payload"] for r in records if r["kind"] == "prompt.finished"]
    # The `abort` record says who stopped it; the turn's end repeats nothing.
    assert finished[0] == {"id": running, "state": "canceled"}
    assert [r["actor"] for r in records if r["kind"] == "abort"] == ["alice"]
    assert agent.turns[1].prompt_id == waiting


async def test_abort_with_nothing_running_is_a_conflict(api):
    r = await api("alice", "POST", "abort")
    assert (r.code, r.json["error"]) == (409, "nothing_running")


async def test_abort_rejects_outstanding_requests(api, room, agent):
    await _approval(api, room)
    r = await api("alice", "POST", "abort")
    assert r.code == 200
    assert room.document.approvals.to_py() == {}
    assert room.document.meta.get("state") == "idle"


@pytest.mark.parametrize(
    ("user", "status"), [("alice", 200), ("bob", 200), ("carol", 200), ("dave", 403)]
)
async def test_who_sees_the_participants(api, user, status):
    r = await api(user, "GET", "participants")
    assert r.code == status
    if status == 200:
        people = {p["username"]: p for p in r.json["participants"]}
        assert people[user]["role"] in ("host", "member", "viewer")


async def test_host_changes_a_role(api):
    await api("bob", "GET", "room")
    r = await api("alice", "PUT", "participants", "bob", body={"role": "viewer"})
    assert r.code == 200
    assert (await api("bob", "GET", "room")).json["me"]["role"] == "viewer"
    r = await api("bob", "POST", "prompts", body={"text": "say hi"})
    assert r.code == 403


async def test_role_changes_are_refused_to_non_hosts_and_for_hosts(api):
    await api("bob", "GET", "room")
    r = await api("bob", "PUT", "participants", "bob", body={"role": "member"})
    assert r.code == 403
    r = await api("alice", "PUT", "participants", "bob", body={"role": "host"})
    assert (r.code, r.json["error"]) == (400, "invalid_body")
    r = await api("alice", "PUT", "participants", "alice", body={"role": "viewer"})
    assert (r.code, r.json["error"]) == (409, "host_fixed")
    assert r.json["message"].startswith("Alice is a host by configuration"), r.json  # her name
    r = await api("alice", "PUT", "participants", "zed", body={"role": "viewer"})
    assert (r.code, r.json["error"]) == (404, "unknown_person")


async def test_removed_person_can_neither_read_nor_submit(api):
    await api("bob", "GET", "room")
    r = await api("bob", "DELETE", "participants", "carol")
    assert r.code == 403
    r = await api("alice", "DELETE", "participants", "bob")
    assert r.code == 204
    assert (await api("bob", "GET", "room")).json == {
        "me": {**(await api("bob", "GET", "room")).json["me"], "role": "refused"}
    }
    assert (await api("bob", "POST", "prompts", body={"text": "say hi"})).code == 403
    assert (await api("bob", "GET", "participants")).code == 403


async def test_host_admits_a_pending_person(api):
    await api("dave", "GET", "room")
    people = {
        p["username"]: p for p in (await api("alice", "GET", "participants")).json["participants"]
    }
    assert people["dave"]["role"] == "pending"
    r = await api("bob", "POST", "admissions", "dave", body={"decision": "member"})
    assert r.code == 403
    r = await api("alice", "POST", "admissions", "dave", body={"decision": "member"})
    assert r.json == {"username": "dave", "role": "member"}
    assert (await api("dave", "POST", "prompts", body={"text": "say hi"})).code == 202


async def test_admission_cannot_make_or_unmake_a_host(api):
    r = await api("alice", "POST", "admissions", "dave", body={"decision": "host"})
    assert (r.code, r.json["error"]) == (400, "invalid_body")
    r = await api("alice", "POST", "admissions", "alice", body={"decision": "reject"})
    assert (r.code, r.json["error"]) == (409, "host_fixed")


async def test_host_rejects_a_pending_person(api):
    await api("dave", "GET", "room")
    r = await api("alice", "POST", "admissions", "dave", body={"decision": "reject"})
    assert r.json["role"] == "refused"
    assert (await api("dave", "GET", "room")).json["me"]["role"] == "refused"


async def test_admission_decisions_persist(api, state_dir):
    await api("alice", "POST", "admissions", "dave", body={"decision": "viewer"})
    stored = json.loads((state_dir / "admissions.json").read_text())
    assert stored["decisions"] == {"dave": "viewer"}


async def test_settings_read_by_all_admitted_changed_by_hosts(api, state_dir):
    assert (await api("carol", "GET", "settings")).json["permission_timeout"] == 120
    assert (await api("dave", "GET", "settings")).code == 403
    r = await api("bob", "PATCH", "settings", body={"admission": "member"})
    assert r.code == 403
    r = await api("alice", "PATCH", "settings", body={"admission": "member"})
    assert r.code == 200 and r.json["admission"] == "member"
    assert json.loads((state_dir / "settings.json").read_text()) == {"admission": "member"}
    assert (await api("dave", "GET", "room")).json["me"]["role"] == "member"


@pytest.mark.parametrize(
    "body", [{"admission": "everyone"}, {"colour": "red"}, {"permission_timeout": -1}]
)
async def test_bad_settings_are_refused(api, body):
    r = await api("alice", "PATCH", "settings", body=body)
    assert (r.code, r.json["error"]) == (400, "invalid_body")


@pytest.mark.parametrize(
    ("user", "status"), [("alice", 200), ("bob", 200), ("carol", 403), ("dave", 403)]
)
async def test_transcript_is_for_members_and_hosts(api, user, status):
    await api("bob", "POST", "prompts", body={"text": "say hi"})
    r = await api(user, "GET", "transcript")
    assert r.code == status
    if status == 200:
        records = [json.loads(line) for line in r.text.splitlines()]
        assert [rec["seq"] for rec in records] == list(range(1, len(records) + 1))
        assert any(rec["kind"] == "prompt.submitted" and rec["actor"] == "bob" for rec in records)


ACTIONS = [
    ("POST", ("prompts",), {"text": "say hi"}),
    ("DELETE", ("prompts", "PROMPT"), None),
    ("POST", ("approvals", "REQUEST"), {"decision": "approve"}),
    ("POST", ("abort",), None),
    ("PUT", ("participants", "bob"), {"role": "viewer"}),
    ("DELETE", ("participants", "bob"), None),
    ("POST", ("admissions", "erin"), {"decision": "member"}),
    ("PATCH", ("settings",), {"admission": "member"}),
    ("GET", ("transcript",), None),
]


@pytest.mark.parametrize("user", ["carol", "dave"])
async def test_viewers_and_pending_people_can_change_nothing(api, room, user):
    await api("erin", "GET", "room")
    await api(user, "GET", "room")
    request_id, _ = await _approval(api, room, author="bob")
    waiting = (await api("bob", "POST", "prompts", body={"text": "say later"})).json["id"]
    before = room.document.snapshot()
    for method, path, body in ACTIONS:
        path = tuple(
            waiting if p == "PROMPT" else request_id if p == "REQUEST" else p for p in path
        )
        r = await api(user, method, *path, body=body)
        assert r.code == 403, (method, path, r)
        assert r.json["error"] == ("forbidden" if user == "carol" else "not_admitted")
    assert room.document.snapshot() == before
