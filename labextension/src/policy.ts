/**
 * Every question the panel asks about who may do what, and the words it shows for states.
 * The answers come from the server's own list (`GET room` returns `me.can`), so the role table
 * is never re-implemented here; this module only combines that list with the item at hand (is
 * it my prompt? is it still waiting?). Views call these functions and nothing else.
 */
import {
  Action,
  AgentState,
  IAnswerers,
  IApproval,
  IMe,
  IParticipant,
  IQueueItem,
  ITarget,
  IThread,
  PromptState,
  RequestOutcome,
  Role
} from './types';
import { REQUEST_ACTIONS } from './generated/declarations';

/** The server's answer: may `me` do `action` at all? */
export function can(me: IMe | null, action: Action): boolean {
  return me?.can.includes(action) ?? false;
}

export function maySubmit(me: IMe | null): boolean {
  return can(me, 'submit');
}

/** Say something to the room: members and hosts, viewers while a host allows it (the server
 * puts `chat` in `me.can` then). */
export function mayChat(me: IMe | null): boolean {
  return can(me, 'chat');
}

/** Export the transcript (a notebook, Markdown, JSONL): whoever may read the transcript. */
export function mayExport(me: IMe | null): boolean {
  return can(me, 'read_transcript');
}

/** Only prompts still waiting can be withdrawn: by their author, or by anyone who may withdraw
 * any prompt (hosts). */
export function mayWithdraw(me: IMe | null, item: IQueueItem): boolean {
  if (item.state !== 'submitted') {
    return false;
  }
  return can(me, 'withdraw_any') || (can(me, 'withdraw_own') && me?.username === item.author);
}

/** Revert a turn's checkpoint: hosts, or its author while hosts allow authors to. */
export function mayRevert(me: IMe | null, author: string): boolean {
  return can(me, 'revert_any') || (can(me, 'revert_own') && me?.username === author);
}

/** Abort the turn `item` is running (hosts). */
export function mayAbort(me: IMe | null, item?: IQueueItem): boolean {
  return can(me, 'abort') && (item === undefined || isRunning(item));
}

/** May `me` answer a card (a request, a question, an execute or admission card) at all? The
 * card names who may (its `answerers`, decided by the server); a user it names answers only
 * while their role still answers their own cards. */
export function mayAnswer(me: IMe | null, answerers: IAnswerers | null | undefined): boolean {
  if (!me || !answerers || (answerers.excluded ?? []).includes(me.username)) {
    return false;
  }
  return (
    answerers.roles.includes(me.role) ||
    (answerers.users.includes(me.username) && can(me, 'answer_own'))
  );
}

/** Who approves a card, in words, from what its `answerers` name: its author and the hosts, or
 * (a side thread brought back) hosts only, one or two of them. */
export function whoApproves(answerers: IAnswerers, needed: number): string {
  if (answerers.users.length > 0) {
    return needed > 1 ? 'the author and a host, or two hosts' : 'the author or a host';
  }
  return needed > 1 ? 'two hosts' : 'a host';
}

/** May `me` approve the card: they may answer it and have not approved it yet (a card that
 * needs two approvers takes one approval per person; a rejection stays open to them). */
export function mayApprove(me: IMe | null, answerers: IAnswerers | null | undefined): boolean {
  return mayAnswer(me, answerers) && !(answerers?.approved ?? []).includes(me?.username ?? '');
}

/** Does the card wait on `me` (the sidebar tab counts it, as the room list does): the users it
 * names who have not approved yet, and, once none is left (someone at the door; a two-approver
 * card its author approved), the roles it names. A host may answer a member's card, but it
 * waits on the member. The same rule as the server's `access/rules.py` `waits_on`. */
export function waitsOn(me: IMe | null, answerers: IAnswerers | null | undefined): boolean {
  if (!me || !answerers || !mayApprove(me, answerers)) {
    return false;
  }
  const named = answerers.users.filter(user => !answerers.approved.includes(user));
  return named.length > 0 ? named.includes(me.username) : answerers.roles.includes(me.role);
}

/** Who may still give the missing approval of a card that needs two, in words: the users it
 * names who have not approved, and its roles. */
export function stillMayApprove(card: IApproval): string {
  const { users, approved } = card.answerers;
  return users.every(user => approved.includes(user)) ? 'a host' : 'the author or another host';
}

/** Steer the running turn of `item`: its author, or anyone who may steer any turn (hosts). */
export function maySteer(me: IMe | null, item: IQueueItem): boolean {
  if (!isRunning(item)) {
    return false;
  }
  return can(me, 'steer_any') || (can(me, 'steer_own') && me?.username === item.author);
}

/** Switch the model of the next turns (hosts). */
export function mayChooseModel(me: IMe | null): boolean {
  return can(me, 'choose_model');
}

export function maySignIn(me: IMe | null): boolean {
  return can(me, 'sign_in');
}

/** Retry starting an agent that could not start (hosts). */
export function mayStartAgent(me: IMe | null): boolean {
  return can(me, 'start_agent');
}

/** Hosts re-role and remove people; a host's own role is fixed by configuration. */
export function mayChangeRole(me: IMe | null, person: IParticipant): boolean {
  return can(me, 'manage_people') && isAdmitted(person) && !isHost(person);
}

export function mayEditSettings(me: IMe | null): boolean {
  return can(me, 'edit_settings');
}

/** The room has no host yet, so the door offers "I started this server". */
export function mayClaimHost(me: IMe | null): boolean {
  return can(me, 'claim_host');
}

/** The secret in what someone pasted: the secret itself, or a whole claim link. */
export function claimSecret(pasted: string): string {
  const text = pasted.trim();
  const match = /[?&]secret=([^&#\s]+)/.exec(text);
  if (!match) {
    return text;
  }
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1]; // not URL-encoded after all: the server says whether it is the secret
  }
}

/** The roles one can hand out (host is never assignable). */
export const ASSIGNABLE_ROLES: readonly ('member' | 'viewer')[] = ['member', 'viewer'];

/** Someone in the room (a host, a member or a viewer): `me`, a participant or a listed room. */
export function isAdmitted(person: { role: Role | string } | null | undefined): boolean {
  const role = person?.role;
  return role === 'host' || role === 'member' || role === 'viewer';
}

/** Someone waiting for a host's decision. */
export function isAtTheDoor(person: { role: Role | string } | null | undefined): boolean {
  return person?.role === 'pending';
}

/** The username of the server's own token holder (a kernel, a script): the server owner. */
export const SERVER_OWNER = 'server-owner';

/** Whom "N people" counts: people in the room with it open now; not someone at the door, and
 * not the server's own token (a kernel, a script), which is no person. */
export function isPresent(person: IParticipant): boolean {
  return person.online && isAdmitted(person) && person.username !== SERVER_OWNER;
}

/** A host of the room (the words "You are the host", a person's badge). */
export function isHost(person: { role: Role | string } | null | undefined): boolean {
  return person?.role === 'host';
}

/** Whether two views of a person (`me`, their participant entry) give them the same role. */
export function sameRole(one: { role: Role | string }, other: { role: Role | string }): boolean {
  return one.role === other.role;
}

/** A person's role in words, for their badge and the role picker. */
export function roleLabel(person: { role: Role | string }): string {
  return person.role;
}

/** Someone knocking now: at the door, and still there (the server shows a pending person online
 * only while their knock lasts, jupyter_copilot_room/room/people/door.py). */
export function isKnocking(person: IParticipant): boolean {
  return isAtTheDoor(person) && person.online;
}

/** "Revert anyway": a revert over cells people edited since (`me.can`'s `revert_anyway`). */
export function mayRevertAnyway(me: IMe | null): boolean {
  return can(me, 'revert_anyway');
}

/** Whether `me` is named by a thread's `use` or `manage` (`meta.threads`, decided by the
 * server's `access/rules.py` `thread_access`): a role it names, or a user it names who may still
 * submit in the room. A thread listed without `access` (before 0.4): its people, and hosts. */
function inThread(me: IMe | null, access: IAnswerers | undefined, users: string[]): boolean {
  if (!me) {
    return false;
  }
  const named = access ?? { users, roles: ['host'], needed: 0, approved: [] };
  return named.roles.includes(me.role) || (named.users.includes(me.username) && maySubmit(me));
}

/** May the reader see (and open) this thread: its people, and the room's hosts. */
export function maySeeThread(me: IMe | null, thread: IThread): boolean {
  return inThread(me, thread.access?.use, thread.people);
}

/** May the reader add people to the thread, bring it back or close it: its owner, and hosts. */
export function mayManageThread(me: IMe | null, thread: IThread): boolean {
  return inThread(me, thread.access?.manage, [thread.owner]);
}

/** Whom a thread's manager may add: the room's members not in it yet (hosts are in already). */
export function mayJoinThread(person: IParticipant, thread: IThread): boolean {
  return person.role === 'member' && !thread.people.includes(person.username);
}

/** "unverified" tells a reader something only about a guest whose name nobody vouched for:
 * never about a host (the room trusts them with everything). */
export function unvouched(person: IParticipant): boolean {
  return !person.verified && !isHost(person);
}

export function isRunning(item: IQueueItem): boolean {
  return item.state === 'working' || item.state === 'input-required';
}

/** Why the prompt box is closed to `me`. */
export function whyNoPrompt(me: IMe | null): string {
  switch (me?.role) {
    case 'viewer':
      return 'Viewers watch the room; ask a host to make you a member to send prompts.';
    case 'pending':
    case undefined:
      return 'You are waiting for a host to let you in.';
    case 'refused':
      return 'You are not admitted to this room.';
    default:
      return 'Prompting is not open to you in this room.';
  }
}

// -- words for states ---------------------------------------------------------------------------

const AGENT_STATES: Record<AgentState, string> = {
  'no-agent': 'no agent',
  starting: 'starting',
  unavailable: 'unavailable',
  idle: 'idle',
  running: 'running',
  waiting: 'waiting for approval',
  aborting: 'stopping',
  degraded: 'degraded',
  sleeping: 'asleep',
  new: 'not started yet',
  held: 'waiting to start'
};

/** The settings dialog's words for a choice's value (the value itself where none is given). */
const CHOICES: Record<string, string> = {
  'ask-host': 'wait for a host',
  viewer: 'let in as viewer',
  member: 'let in as member',
  refuse: 'turn away',
  ask: 'ask',
  auto: 'approve by itself',
  deny: 'reject by itself',
  two: 'ask two people'
};

export function choiceLabel(choice: string): string {
  return CHOICES[choice] ?? choice;
}

/** A setting's help as people read it: the values it quotes (`'ask-host'`, the configuration's
 * words) named as its editor names them (“ask a host”). */
export function readableHelp(description: string, choices: readonly string[] = []): string {
  return choices.reduce(
    (text, choice) => text.split(`'${choice}'`).join(`“${choiceLabel(choice)}”`),
    description
  );
}

export function agentStateLabel(state?: string): string {
  return state ? (AGENT_STATES[state as AgentState] ?? state) : '…';
}

/** The agent's state in words; `waiting` says on what: an answer when every card the running
 * turn opened is a question, an approval otherwise. */
export function turnStateLabel(
  state?: string,
  turnCards: readonly { kind: string }[] = []
): string {
  if (
    state === 'waiting' &&
    turnCards.length > 0 &&
    turnCards.every(card => card.kind === 'question')
  ) {
    return 'waiting for an answer';
  }
  return agentStateLabel(state);
}

const PROMPT_STATES: Record<PromptState, string> = {
  submitted: 'waiting',
  working: 'running',
  'input-required': 'waiting for an answer',
  completed: 'done',
  failed: 'failed',
  canceled: 'cancelled'
};

export function promptStateLabel(state: string): string {
  return PROMPT_STATES[state as PromptState] ?? state;
}

const OUTCOMES: Record<RequestOutcome, string> = {
  pending: 'waiting for an answer',
  approved: 'approved',
  rejected: 'rejected',
  answered: 'answered',
  timed_out: 'nobody answered in time: rejected',
  aborted: 'cancelled'
};

export function outcomeLabel(state: string): string {
  return OUTCOMES[state as RequestOutcome] ?? state;
}

/** What the agent asks to do, by permission kind: a card's title ("Run notebook cells") and the
 * transcript's line ("Copilot asked to run notebook cells"). */
export function requestAction(kind?: string | null): string {
  return REQUEST_ACTIONS[kind ?? ''] ?? `use ${kind || 'a tool'}`; // as approval_policy.action
}

export function requestTitle(kind?: string | null): string {
  const action = requestAction(kind);
  return action.charAt(0).toUpperCase() + action.slice(1);
}

/** The status bar's word for the room as `me` sees it. */
export function roomStatusLabel(
  me: IMe | null,
  connection: string,
  state?: AgentState,
  turnCards: readonly { kind: string }[] = []
): string {
  if (isAtTheDoor(me)) {
    return 'waiting to join';
  }
  if (me?.role === 'refused') {
    return 'not in the room';
  }
  if (connection === 'connecting') {
    return 'connecting';
  }
  return connection === 'online' ? turnStateLabel(state, turnCards) : 'offline';
}

// -- `/` skills and `@` custom agents -----------------------------------------------------------

export type TargetKind = ITarget['kind'];

export function sigil(kind: TargetKind): '/' | '@' {
  return kind === 'skill' ? '/' : '@';
}

export function kindOfSigil(char: string): TargetKind | null {
  return char === '/' ? 'skill' : char === '@' ? 'agent' : null;
}

/** `/review` or `@tester`. */
export function targetLabel(target: ITarget): string {
  return sigil(target.kind) + target.name;
}
