/**
 * Plain shapes of what the server sends: `GET room`, the REST answers and the live document's
 * roots (`meta`, `participants`, `queue`, `approvals`; the `transcript` entries are in
 * `entries.ts`). The wire contract lives in `jupyter_copilot_room/room/live/document.py`.
 */

import type { Hidden } from './hidden';

import type { AgentState, PromptState, RequestOutcome, Role } from './generated/declarations';

/** The wire's words, each generated from its Python declaration (`panel_declarations.py`). */
export type {
  Action,
  AgentState,
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalRule,
  IKindPolicy,
  PromptState,
  RequestOutcome,
  Role
} from './generated/declarations';

export interface IMe {
  username: string;
  display_name: string;
  role: Role;
  verified: boolean;
  avatar_url?: string | null;
  color?: string | null;
  can: readonly string[];
}

/** `GET room`: the caller; the room's state too for people who are admitted. */
export interface IRoomStatus {
  me: IMe;
  /** The chat services (`slack`) whose account an admitted caller may link to their username
   * (`POST link-code`), when the server runs a chat bridge; absent otherwise. */
  chats?: string[];
  /** The room's channel in each chat service the server bridges (null: none linked); hosts
   * change it (`PUT`/`DELETE channels/{service}`). */
  channels?: Record<string, string | null>;
}

/** `PUT channels/{service}`: the room's channel there now. */
export interface IChannelLink {
  service: string;
  channel: string;
}

export interface IParticipant {
  username: string;
  display_name: string;
  role: Role;
  online: boolean;
  verified: boolean;
  color?: string | null;
  avatar_url?: string | null;
  /** Set while they wait at the door: who may admit them (an admission card). */
  answerers?: IAnswerers | null;
  /** Why they wait, when the room knows (set while at the door): "no Copilot seat in acme". */
  door_note?: string | null;
}

/** A skill (`/name`) or a custom agent (`@name`) a prompt is addressed to. */
export interface ITarget {
  kind: 'skill' | 'agent';
  name: string;
}

export interface IQueueItem {
  id: string;
  author: string;
  text: string;
  target: ITarget | null;
  state: PromptState;
  submitted_at: number;
  started_at?: number;
  /** Where it was asked, when not in the panel: the pull request comment's URL. */
  link?: string | null;
}

/** Who may answer a card, as the server decides it (`access/rules.py`): the users it names and
 * anyone whose role it names; those in `approved` approved already (a card that needs two then
 * waits only on the others), `needed` approvals are still missing. A settled card names nobody. */
export interface IAnswerers {
  users: string[];
  roles: Role[];
  needed: number;
  approved: string[];
  /** Who may not answer whatever their role (a side thread's owner, on its card of two). */
  excluded?: string[];
}

/** A card in `approvals`: a permission request, or a question (kind `question`). */
export interface IApproval {
  id: string;
  kind: string;
  /** At most 8,000 characters: `hidden` says what is cut (./hidden.ts). */
  summary: string;
  /** The card's texts (each cut like `summary`); the wire's `details.truncated` is `hidden`. */
  details: Record<string, string>;
  /** The texts the card shows only in part, by field (`summary` or a key of `details`). */
  hidden?: Hidden;
  prompt_id: string;
  author: string;
  deadline: number;
  choices: string[];
  allow_freeform: boolean;
  state: RequestOutcome;
  answered_by: string | null;
  /** 2 when the approval policy wants two approvers (absent: one). */
  approvers_needed?: number;
  /** Who approved so far, in order (a request that needs two). */
  approvers?: string[];
  /** The title of the agent that asks, when not the room's own Copilot (an ACP agent). */
  agent?: string;
  /** The approval policy rule that decided how this is answered. */
  rule?: string | null;
  answerers: IAnswerers;
}

/** An agent a host may choose for the room (`c.CopilotRoom.agents`, or the room's own). */
export interface IOfferedAgent {
  name: string;
  title: string;
}

export interface IMeta {
  state?: AgentState;
  /** What the agent's status line says (its label). */
  agent?: string;
  /** Which agent answers: its name and title (`GET room`'s agent). */
  name?: string;
  title?: string;
  /** The agents a host may choose between in the settings (one: no choice). */
  agents?: IOfferedAgent[];
  /** What people should know (ready), or what to do (unavailable): a short paragraph. */
  agent_detail?: string;
  /** Why the agent is unavailable, exactly (for the curious; shown collapsed). */
  agent_error?: string;
  turn_owner?: string | null;
  turn_prompt?: string | null;
  /** The model the next turn asks (the agent's label names it too). */
  model?: string | null;
  /** Whether the agent's model calls cost AI Credits (a Copilot login): false with the server's
   * own provider or the demo model, whose calls the room counts in tokens only. */
  ai_credits_apply?: boolean | null;
  /** Where the agent's model access came from: the variable of a Copilot login (never its
   * value), the runtime's sign-in, the server's provider, or the demo model. */
  agent_source?: string | null;
  /** The kernel the agent last ran cells in: its state and its notebook. */
  kernel_state?: string | null;
  kernel_notebook?: string | null;
  /** The outside services (fronts) the room links to that are not well, by name, with what is
   * wrong (`{"github": "waiting"}`); a front that is well is absent. */
  fronts?: Record<string, string> | null;
  /** The room's channel in a chat service, as a host last linked (a string) or unlinked it
   * (null): set by the server at each change, so every panel's room menu follows at once. */
  channels?: Record<string, string | null> | null;
  /** Today's usage (UTC), summed from the records, and the configured daily caps. */
  usage?: IUsageToday;
  budgets?: IBudgets;
  /** Whose Copilot login answers, once a host signed the room in from the panel ("" when the
   * runtime did not say; null after a sign-out). */
  copilot_seat?: string | null;
  /** The premium requests the Copilot seat has left, as the runtime reports them for a Copilot
   * login (null: no seat answers, or the runtime cannot say). */
  copilot_quota?: ISeatQuota | null;
  /** The room's side threads (../threads.ts): everyone admitted sees that they exist. */
  threads?: IThread[];
  /** A side thread's own document: the thread it is. */
  thread?: IThread;
}

/** A side thread as `GET threads` and `meta.threads` list it. */
export interface IThread {
  id: string;
  title: string;
  owner: string;
  /** The prompt whose turn the thread forked after (null: before any turn). */
  from: string | null;
  state: 'open' | 'closed';
  /** Who may use it: its owner first, then the people they added. */
  people: string[];
  created_at?: number;
  /** Who uses it and who manages it (add people, bring it back, close it), decided by the
   * server (`access/rules.py` `thread_access`); absent from a thread listed before 0.4. */
  access?: { use: IAnswerers; manage: IAnswerers };
}

/** `meta.copilot_quota` (jupyter_copilot_room/agent/seam.py `SeatQuota`). */
export interface ISeatQuota {
  entitlement: number;
  used: number;
  remaining_percentage: number;
  unlimited: boolean;
  resets_at?: string | null;
}

/** What turns cost: AI Credits and premium requests (none with a provider), tokens in and out,
 * turns. `ai_credits` is missing from the sums of a day summed before 0.3. */
export interface IUsageSums {
  ai_credits?: number;
  premium_requests: number;
  input_tokens: number;
  output_tokens: number;
  turns: number;
}

export interface IUsageToday {
  day: string;
  room: IUsageSums;
  people: { [username: string]: IUsageSums };
  /** Whose per-person cap a host lifted for `day`. */
  lifted: string[];
}

export type BudgetUnit = 'ai_credits' | 'premium_requests' | 'tokens';

export interface IBudgets {
  per_person: Partial<Record<BudgetUnit, number>>;
  room: Partial<Record<BudgetUnit, number>>;
}

export interface ICatalogItem {
  name: string;
  description: string;
  source: string;
}

export interface ICatalog {
  skills: ICatalogItem[];
  agents: ICatalogItem[];
}

/** `GET settings`: generated from `RoomSettings` (settings.py). */
export type { ISettings } from './generated/declarations';
