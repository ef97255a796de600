"""Who may do what, decided once (`access/rules.py`): the cards in the document name who may
answer them, and the ledger that checks an answer agrees with what the cards say."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_copilot_room.access import rules
from jupyter_copilot_room.access.roles import Action, Role
from jupyter_copilot_room.errors import Conflict, NotAllowed
from jupyter_copilot_room.events import Record, RequestApproval, RequestOpened, RequestSettled
from jupyter_copilot_room.room.cards.request_ledger import Request, RequestLedger
from jupyter_copilot_room.room.live.document import RoomDocument

PEOPLE = ["alice", "bob", "carol"]
ROLES = [Role.HOST, Role.MEMBER, Role.VIEWER, Role.PENDING]


def apply(document, seq, kind, payload, actor=None):
    document.apply(Record(seq=seq, ts=float(seq), kind=kind, actor=actor, payload={}), payload)


def opened(request_id, kind, needed=1):
    return RequestOpened(
        id=request_id,
        kind=kind,
        prompt_id="p1",
        author="bob",
        summary=f"{kind} card",
        deadline=100.0,
        approvers_needed=needed,
    )


def test_every_card_in_the_document_carries_answerers():
    document = RoomDocument()
    for n, kind in enumerate(("shell", "question", "execute", "write"), start=1):
        apply(document, n, "request.opened", opened(f"r{n}", kind))
    document.put_participant("dave", role="pending", answerers=rules.admission_answerers())

    cards = document.approvals.to_py()
    assert len(cards) == 4
    for card in cards.values():
        assert card["answerers"] == {
            "users": ["bob"],
            "roles": ["host"],
            "needed": 1,
            "approved": [],
        }
    entries = [e for e in document.transcript.to_py() if e["kind"] in ("permission", "question")]
    assert [e["answerers"]["users"] for e in entries] == [["bob"]] * 4
    door = document.participants.to_py()["dave"]["answerers"]
    assert (door["users"], door["roles"]) == ([], ["host"])


def test_a_card_waits_on_its_author_and_on_hosts_only_once_no_named_user_is_left():
    card = rules.request_answerers("bob")
    assert rules.waits_on(card, "bob", Role.MEMBER)
    assert rules.may_answer(card, "alice", Role.HOST) and not rules.waits_on(
        card, "alice", Role.HOST
    )
    assert not rules.may_answer(card, "carol", Role.MEMBER)
    door = rules.admission_answerers()
    assert rules.waits_on(door, "alice", Role.HOST) and not rules.waits_on(door, "bob", Role.MEMBER)


def test_a_two_approver_card_stops_waiting_on_whoever_approved():
    document = RoomDocument()
    apply(document, 1, "request.opened", opened("r1", "shell", needed=2))
    apply(document, 2, "request.approval", RequestApproval(id="r1", approvers=["bob"]), "bob")

    card = document.approvals.to_py()["r1"]
    assert card["answerers"]["needed"] == 1
    assert not rules.waits_on(card["answerers"], "bob", Role.MEMBER)
    assert rules.may_answer(card["answerers"], "bob", Role.MEMBER)  # a rejection still counts
    assert rules.waits_on(card["answerers"], "alice", Role.HOST)
    assert rules.waiting_on([card], "bob", Role.MEMBER) == 0
    assert rules.waiting_on([card], "alice", Role.HOST) == 1

    apply(document, 3, "request.settled", RequestSettled(id="r1", outcome="approved"), "alice")
    [entry] = [e for e in document.transcript.to_py() if e["id"] == "r1"]
    assert not rules.may_answer(entry["answerers"], "alice", Role.HOST)
    assert "r1" not in document.approvals.to_py()


@given(
    by=st.sampled_from(PEOPLE),
    role=st.sampled_from(ROLES),
    needed=st.sampled_from([1, 2]),
    approved_first=st.booleans(),
    kind=st.sampled_from(["shell", rules.PROMOTE]),
)
def test_the_ledger_refuses_exactly_whom_the_card_does_not_name(
    by, role, needed, approved_first, kind
):
    """One rule: an answer the ledger takes is one the card's `answerers` allow, and the card
    waits only on people whose approval the ledger would take (a promote card too)."""
    ledger = RequestLedger()
    request = Request("r1", kind, "p1", "bob", "make", 0.0, 100.0, approvers_needed=needed)
    ledger.open(request)
    approvals: list[str] = []
    if approved_first and needed == 2:
        first = "alice" if kind == rules.PROMOTE else "bob"
        ledger.add_approval("r1", first)
        approvals = [first]
    answerers = rules.request_answerers("bob", needed, approvals, kind=kind)

    def taken(approve):
        try:
            ledger.check_permission_answer("r1", by, role=role, now=1.0, approve=approve)
        except (NotAllowed, Conflict):
            return False
        return True

    assert taken(approve=False) == rules.may_answer(answerers, by, role)
    assert taken(approve=True) == rules.may_approve(answerers, by, role)
    if rules.waits_on(answerers, by, role):
        assert taken(approve=True), "a card never waits on someone who may not approve it"


@pytest.mark.parametrize(
    ("role", "terms", "expected"),
    [
        (Role.VIEWER, rules.Terms(), set()),
        (Role.VIEWER, rules.Terms(viewers_can_chat=True), {Action.CHAT}),
        (Role.MEMBER, rules.Terms(), {Action.CHAT}),
        (Role.MEMBER, rules.Terms(authors_can_revert=True), {Action.CHAT, Action.REVERT_OWN}),
        (Role.PENDING, rules.Terms(claimable=True), {Action.CLAIM_HOST}),
    ],
)
def test_settings_and_state_add_what_the_role_table_leaves_to_them(role, terms, expected):
    conditional = {Action.CHAT, Action.REVERT_OWN, Action.CLAIM_HOST}
    granted = rules.actions(role, terms)
    assert granted & conditional == expected
    assert rules.listed(role, terms) == [a.value for a in Action if a in granted]


def test_a_host_reverts_any_turn_and_an_author_only_their_own_when_allowed():
    allowed = rules.Terms(authors_can_revert=True)
    assert rules.may_revert(Role.HOST, "alice", "bob", rules.Terms())
    assert not rules.may_revert(Role.MEMBER, "bob", "bob", rules.Terms())
    assert rules.may_revert(Role.MEMBER, "bob", "bob", allowed)
    assert not rules.may_revert(Role.MEMBER, "bob", "carol", allowed)
    assert not rules.may_revert(Role.VIEWER, "bob", "bob", allowed)


def test_a_promote_card_is_decided_by_someone_other_than_the_threads_owner():
    """Bringing a private line of work into everyone's files: the hosts decide; the owner only
    as a host, and never as one of two."""
    one = rules.request_answerers("bob", 1, kind=rules.PROMOTE)
    assert not rules.may_answer(one, "bob", Role.MEMBER), "a member owner"
    assert rules.may_answer(one, "bob", Role.HOST), "an owner who is a host"
    assert rules.may_answer(one, "alice", Role.HOST)
    assert not rules.may_answer(one, "erin", Role.MEMBER)
    assert rules.who_answers(one) == "a host"
    two = rules.request_answerers("alice", 2, kind=rules.PROMOTE)
    assert not rules.may_answer(two, "alice", Role.HOST), "the owner is never one of two"
    assert rules.may_approve(two, "hana", Role.HOST)
    assert rules.who_answers(two) == "a host other than alice"
    shell = rules.request_answerers("bob", 1)
    assert rules.may_answer(shell, "bob", Role.MEMBER), "other cards stay their author's"


def test_who_answers_names_only_those_the_card_still_waits_on():
    """The words a refused person reads, in the panel's REST answer and in a chat: a card that
    needs two approvals, once its author approved, waits on another host only."""
    shell = rules.request_answerers("bob", 2)
    assert rules.who_answers(shell) == "bob (who asked for this turn) or a host"
    assert rules.who_answers(rules.request_answerers("bob", 2, ["bob"])) == "a host other than bob"
    both = rules.request_answerers("bob", 2, ["alice"])
    assert rules.who_answers(both) == "bob (who asked for this turn) or a host other than alice"
    display = {"bob": "Bob B.", "alice": "Alice A."}.__getitem__
    assert rules.who_answers(both, display, asker="") == "Bob B. or a host other than Alice A."
    promote = rules.request_answerers("alice", 2, ["hana"], kind=rules.PROMOTE)
    assert rules.who_answers(promote) == "a host other than alice and hana"
    assert rules.who_answers(rules.request_answerers("bob", open_=False)) == "no one"


@pytest.mark.parametrize(
    ("permission", "acts"),
    [
        ("admin", True),
        ("maintain", True),
        ("write", True),
        ("triage", False),
        ("read", False),
        ("none", False),
        ("", False),
        ("Admin", False),  # GitHub writes its roles in lower case; nothing else is one
    ],
)
def test_only_those_who_may_push_to_the_repository_act_from_its_pull_request(permission, acts):
    """The pull request front passes the login's role on the repository as a fact; the rule
    is here, not in the front."""
    assert rules.may_act_on_repository(permission) is acts
