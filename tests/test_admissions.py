"""Admission order: configured hosts, hosts' removals and re-roles, the hub's grant, stored
decisions or allow lists, then policy."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_copilot_room.access.admissions import (
    AdmissionBook,
    Decision,
    save_decisions,
)
from jupyter_copilot_room.access.roles import Role
from jupyter_copilot_room.errors import Conflict
from jupyter_copilot_room.settings import Policy


def book(**kwargs):
    defaults = dict(
        hosts=frozenset({"alice"}), members=frozenset({"bob"}), viewers=frozenset({"carol"})
    )
    return AdmissionBook(**{**defaults, **kwargs})


def test_configured_people_get_their_roles():
    b = book()
    assert b.role_of("alice", verified=True) is Role.HOST
    assert b.role_of("bob", verified=True) is Role.MEMBER
    assert b.role_of("carol", verified=True) is Role.VIEWER
    assert b.role_of("dave", verified=True) is Role.PENDING


@pytest.mark.parametrize(
    ("policy", "role"),
    [
        (Policy.ASK_HOST, Role.PENDING),
        (Policy.VIEWER, Role.VIEWER),
        (Policy.MEMBER, Role.MEMBER),
        (Policy.REFUSE, Role.REFUSED),
    ],
)
def test_policy_decides_for_unknown_people_by_sign_in_type(policy, role):
    verified = book(policy=policy)
    assert verified.role_of("dave", verified=True) is role
    assert verified.role_of("dave", verified=False) is Role.PENDING
    guests = book(guest_policy=policy)
    assert guests.role_of("dave", verified=False) is role


def test_the_hubs_grant_comes_before_admission_decisions_and_lists():
    b = book()
    b.decide("dave", Decision.VIEWER)
    assert b.role_of("dave", verified=True, hub_role=Role.MEMBER) is Role.MEMBER
    assert b.role_of("bob", verified=True, hub_role=Role.VIEWER) is Role.VIEWER
    assert b.role_of("alice", verified=True, hub_role=Role.VIEWER) is Role.HOST


def test_a_hosts_rejection_holds_even_against_the_hubs_grant():
    b = book()
    b.decide("dave", Decision.REJECT)
    assert b.role_of("dave", verified=True, hub_role=Role.MEMBER) is Role.REFUSED
    b.decide("dave", Decision.MEMBER)
    assert b.role_of("dave", verified=True, hub_role=Role.VIEWER) is Role.VIEWER


def test_stored_decision_comes_before_the_allow_lists():
    b = book()
    b.decide("bob", Decision.VIEWER)
    assert b.role_of("bob", verified=True) is Role.VIEWER
    b.decide("carol", Decision.REJECT)
    assert b.role_of("carol", verified=True) is Role.REFUSED


def test_a_configured_host_is_never_decided_on():
    b = book()
    for decision in Decision:
        with pytest.raises(Conflict):
            b.decide("alice", decision)
    assert b.role_of("alice", verified=True) is Role.HOST


def test_host_is_not_a_decision():
    assert "host" not in {d.value for d in Decision}


def test_claimed_host_is_a_host():
    b = book(hosts=frozenset())
    b.decide("erin", Decision.VIEWER)
    b.claim_host("erin")
    assert b.role_of("erin", verified=False) is Role.HOST


def test_decisions_are_written_atomically(tmp_path):
    path = tmp_path / "admissions.json"
    b = book()
    b.decide("dave", Decision.MEMBER)
    save_decisions(path, b)
    assert json.loads(path.read_text())["decisions"] == {"dave": "member"}
    assert [p.name for p in tmp_path.iterdir()] == ["admissions.json"], "no temp file left"


names = st.sampled_from(["alice", "bob", "carol", "dave", "erin"])


@given(
    decisions=st.dictionaries(names, st.sampled_from(list(Decision))),
    policy=st.sampled_from(list(Policy)),
    guest_policy=st.sampled_from(list(Policy)),
    username=names,
    verified=st.booleans(),
    gate=st.sampled_from([None, Role.MEMBER, Role.VIEWER]),
)
def test_admission_order_holds_for_any_state(
    decisions, policy, guest_policy, username, verified, gate
):
    b = book(policy=policy, guest_policy=guest_policy)
    for name, decision in decisions.items():
        if name != "alice":
            b.decide(name, decision)
    role = b.role_of(username, verified=verified, hub_role=gate)
    if username == "alice":
        assert role is Role.HOST
    else:
        assert role is not Role.HOST
        if decisions.get(username) is Decision.REJECT:
            assert role is Role.REFUSED
        elif gate is not None:
            assert role is gate
        elif username in decisions:
            assert role.value == {"reject": "refused"}.get(decisions[username], decisions[username])
        elif username in ("bob", "carol"):
            assert role is (Role.MEMBER if username == "bob" else Role.VIEWER)
    assert b.decisions == {n: d for n, d in decisions.items() if n != "alice"}


def test_a_hosts_re_role_holds_against_the_hubs_grant_until_the_next_admission():
    b = book()
    b.decide("dave", Decision.VIEWER, over_hub=True)
    assert b.role_of("dave", verified=True, hub_role=Role.MEMBER) is Role.VIEWER
    b.decide("dave", Decision.MEMBER, over_hub=True)
    assert b.role_of("dave", verified=True, hub_role=Role.VIEWER) is Role.MEMBER
    b.decide("dave", Decision.VIEWER)  # an admission at the door yields to the hub again
    assert b.role_of("dave", verified=True, hub_role=Role.MEMBER) is Role.MEMBER
