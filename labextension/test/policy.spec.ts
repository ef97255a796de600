import { describe, expect, it } from 'vitest';

import {
  agentStateLabel,
  choiceLabel,
  can,
  isAdmitted,
  isKnocking,
  kindOfSigil,
  mayAbort,
  isPresent,
  mayAnswer,
  whoApproves,
  mayChangeRole,
  mayChooseModel,
  mayRevert,
  mayEditSettings,
  mayStartAgent,
  maySteer,
  maySubmit,
  mayWithdraw,
  outcomeLabel,
  promptStateLabel,
  requestAction,
  requestTitle,
  roomStatusLabel,
  mayApprove,
  stillMayApprove,
  waitsOn,
  turnStateLabel,
  sigil,
  targetLabel,
  whyNoPrompt
} from '../src/policy';
import { IApproval, IParticipant, IQueueItem } from '../src/types';
import { answerers, me } from './roomdoc';

const alice = me('alice', 'host');
const bob = me('bob', 'member');
const erin = me('erin', 'member');
const carol = me('carol', 'viewer');
const dave = me('dave', 'pending');

function item(author: string, state: IQueueItem['state']): IQueueItem {
  return { id: 'p', author, text: '', target: null, state, submitted_at: 0 };
}

function card(author: string): IApproval {
  return {
    id: 'r',
    kind: 'shell',
    summary: '',
    details: {},
    prompt_id: 'p',
    author,
    deadline: 0,
    choices: [],
    allow_freeform: true,
    state: 'pending',
    answered_by: null,
    answerers: answerers([author])
  };
}

function person(username: string, role: IParticipant['role']): IParticipant {
  return { username, display_name: username, role, online: true, verified: true };
}

describe('who may do what', () => {
  it('asks the server list and nothing else', () => {
    expect(can(null, 'watch')).toBe(false);
    expect(can({ ...bob, can: ['abort'] }, 'abort')).toBe(true);
    expect(can({ ...alice, can: [] }, 'abort')).toBe(false);
  });

  it('lets members and hosts prompt, not viewers or people at the door', () => {
    expect([alice, bob, carol, dave, null].map(maySubmit)).toEqual([
      true,
      true,
      false,
      false,
      false
    ]);
  });

  it('lets the author and hosts withdraw a waiting prompt, nobody a started one', () => {
    const waiting = item('bob', 'submitted');
    expect([alice, bob, erin, carol].map(who => mayWithdraw(who, waiting))).toEqual([
      true,
      true,
      false,
      false
    ]);
    for (const state of ['working', 'input-required', 'completed'] as const) {
      expect(mayWithdraw(alice, item('bob', state))).toBe(false);
      expect(mayWithdraw(bob, item('bob', state))).toBe(false);
    }
  });

  it('lets hosts abort a running turn only', () => {
    expect(mayAbort(alice, item('bob', 'working'))).toBe(true);
    expect(mayAbort(alice, item('bob', 'input-required'))).toBe(true);
    expect(mayAbort(alice, item('bob', 'submitted'))).toBe(false);
    expect(mayAbort(bob, item('bob', 'working'))).toBe(false);
    expect(mayAbort(alice)).toBe(true);
  });

  it('waits on the author of a card, not on the hosts who may also answer it', () => {
    expect([alice, bob, erin].map(who => waitsOn(who, card('bob').answerers))).toEqual([
      false,
      true,
      false
    ]);
  });

  it("lets the prompt's author and hosts answer its card, not other members", () => {
    expect([alice, bob, erin, carol].map(who => mayAnswer(who, card('bob').answerers))).toEqual([
      true,
      true,
      false,
      false
    ]);
  });

  it('needs two different people for a card that wants two approvers', () => {
    const two = { ...card('bob'), answerers: answerers(['bob'], ['host'], ['bob']) };
    expect([alice, bob, erin].map(who => mayApprove(who, two.answerers))).toEqual([
      true,
      false,
      false
    ]);
    expect([alice, bob].map(who => waitsOn(who, two.answerers))).toEqual([true, false]);
    expect(mayAnswer(bob, two.answerers)).toBe(true); // may still reject
    expect(stillMayApprove(two)).toBe('a host');
    const byHost = { ...two, answerers: answerers(['bob'], ['host'], ['alice']) };
    expect([alice, bob].map(who => mayApprove(who, byHost.answerers))).toEqual([false, true]);
    expect([alice, bob].map(who => waitsOn(who, byHost.answerers))).toEqual([false, true]);
    expect(stillMayApprove(byHost)).toBe('the author or another host');
  });

  it("keeps a thread's owner off its promote card unless a host, and never one of two", () => {
    const hostOwner = me('alice', 'host');
    const promote = answerers([], ['host']);
    expect([hostOwner, bob].map(who => mayAnswer(who, promote))).toEqual([true, false]);
    expect(whoApproves(promote, 1)).toBe('a host');
    const ofTwo = { ...answerers([], ['host'], [], 2), excluded: ['alice'] };
    expect([hostOwner, me('hana', 'host')].map(who => mayAnswer(who, ofTwo))).toEqual([
      false,
      true
    ]);
    expect(whoApproves(ofTwo, 2)).toBe('two hosts');
    expect(whoApproves(answerers(['bob']), 2)).toBe('the author and a host, or two hosts');
  });

  it('counts as present only admitted people with the room open, never the server owner', () => {
    const at = (username: string, role: string, online: boolean) =>
      isPresent({ username, display_name: username, role, online } as unknown as IParticipant);
    expect([
      at('alice', 'host', true),
      at('bob', 'member', false),
      at('dave', 'pending', true),
      at('server-owner', 'host', true)
    ]).toEqual([true, false, false, false]);
  });

  it('lets nobody answer a card that names nobody (settled)', () => {
    const settled = { ...card('bob'), answerers: answerers([], []) };
    expect([alice, bob].map(who => mayAnswer(who, settled.answerers))).toEqual([false, false]);
  });

  it('lets hosts manage people but never change a host', () => {
    expect(mayEditSettings(alice)).toBe(true);
    expect(mayEditSettings(bob)).toBe(false);
    expect(mayChangeRole(alice, person('bob', 'member'))).toBe(true);
    expect(mayChangeRole(alice, person('carol', 'viewer'))).toBe(true);
    expect(mayChangeRole(alice, person('zoe', 'host'))).toBe(false);
    expect(mayChangeRole(alice, person('dave', 'pending'))).toBe(false);
    expect(mayChangeRole(bob, person('carol', 'viewer'))).toBe(false);
  });

  it("lets the running prompt's author and hosts steer it, nobody a waiting one", () => {
    for (const state of ['working', 'input-required'] as const) {
      expect([alice, bob, erin, carol, dave].map(who => maySteer(who, item('bob', state)))).toEqual(
        [true, true, false, false, false]
      );
    }
    expect(maySteer(bob, item('bob', 'submitted'))).toBe(false);
    expect(maySteer(alice, item('bob', 'completed'))).toBe(false);
  });

  it('lets only hosts switch the model', () => {
    expect([alice, bob, carol, dave].map(mayChooseModel)).toEqual([true, false, false, false]);
  });

  it('lets only hosts retry starting an agent that cannot run', () => {
    expect([alice, bob, carol, dave].map(mayStartAgent)).toEqual([true, false, false, false]);
  });

  it('knows who is inside', () => {
    expect(
      ['host', 'member', 'viewer', 'pending', 'refused'].map(role => isAdmitted({ role }))
    ).toEqual([true, true, true, false, false]);
  });

  it('counts someone at the door as waiting only while their knock lasts', () => {
    const at = (role: string, online: boolean) =>
      isKnocking({ username: 'x', display_name: 'X', role, online } as unknown as IParticipant);
    expect([at('pending', true), at('pending', false), at('member', true)]).toEqual([
      true,
      false,
      false
    ]);
  });

  it('says why the prompt box is closed', () => {
    expect(whyNoPrompt(carol)).toContain('Viewers watch the room');
    expect(whyNoPrompt(dave)).toContain('waiting for a host');
    expect(whyNoPrompt(me('x', 'refused'))).toContain('not admitted');
  });
});

describe('words for states', () => {
  it('names agent, prompt and request states, and passes unknown ones through', () => {
    expect(agentStateLabel('waiting')).toBe('waiting for approval');
    expect(agentStateLabel('aborting')).toBe('stopping');
    expect(agentStateLabel('sleeping')).toBe('asleep');
    expect(agentStateLabel('held')).toBe('waiting to start');
    expect(agentStateLabel(undefined)).toBe('…');
    expect(agentStateLabel('brand-new')).toBe('brand-new');
    expect(agentStateLabel('new')).toBe('not started yet');
    expect(choiceLabel('ask-host')).toBe('wait for a host');
    expect(choiceLabel('two')).toBe('ask two people');
    expect(choiceLabel('nobody-knows')).toBe('nobody-knows');
    expect(promptStateLabel('submitted')).toBe('waiting');
    expect(promptStateLabel('input-required')).toBe('waiting for an answer');
    expect(outcomeLabel('timed_out')).toBe('nobody answered in time: rejected');
  });

  it('says what the agent asks to do in words, for a card and for the transcript', () => {
    expect(requestTitle('execute')).toBe('Run notebook cells');
    expect(requestAction('execute')).toBe('run notebook cells');
    expect(requestAction('url')).toBe('fetch a URL');
    expect(requestAction('something-new')).toBe('use something-new');
  });

  it('names the room in the status bar as the caller sees it', () => {
    expect(roomStatusLabel(dave, 'outside')).toBe('waiting to join');
    expect(roomStatusLabel(me('x', 'refused'), 'outside')).toBe('not in the room');
    expect(roomStatusLabel(bob, 'connecting', 'idle')).toBe('connecting');
    expect(roomStatusLabel(bob, 'offline', 'idle')).toBe('offline');
    expect(roomStatusLabel(bob, 'online', 'running')).toBe('running');
    const question = { kind: 'question' };
    const shell = { kind: 'shell' };
    expect(roomStatusLabel(bob, 'online', 'waiting', [question])).toBe('waiting for an answer');
    expect(turnStateLabel('waiting', [question, shell])).toBe('waiting for approval');
    expect(turnStateLabel('waiting', [])).toBe('waiting for approval');
    expect(turnStateLabel('running', [question])).toBe('running');
  });
});

describe('the / and @ sigils', () => {
  it('go both ways', () => {
    expect(sigil('skill')).toBe('/');
    expect(sigil('agent')).toBe('@');
    expect(kindOfSigil('/')).toBe('skill');
    expect(kindOfSigil('@')).toBe('agent');
    expect(kindOfSigil('#')).toBeNull();
    expect(targetLabel({ kind: 'agent', name: 'tester' })).toBe('@tester');
  });
});

describe('mayRevert', () => {
  it('follows the server: any turn with revert_any, only ones own with revert_own', () => {
    const host = { ...alice, can: [...alice.can, 'revert_any' as const] };
    const author = { ...bob, can: [...bob.can, 'revert_own' as const] };
    expect(mayRevert(host, 'bob')).toBe(true);
    expect(mayRevert(author, 'bob')).toBe(true);
    expect(mayRevert(author, 'erin')).toBe(false);
    expect(mayRevert(bob, 'bob')).toBe(false); // hosts did not allow authors to
    expect(mayRevert(carol, 'carol')).toBe(false);
  });
});
