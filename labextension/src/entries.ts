/**
 * The transcript's entries, one type per kind, as `jupyter_copilot_room/room/live/document.py`
 * writes them. Every entry has an id, a kind, an author (`copilot` for the agent, none for
 * system lines), a time and a body (a Y.Text on the wire, streamed by appends).
 */
import { IShownAttachment } from './attachments';
import { bidiShown } from './bidi';
import { IShownChip } from './chips';
import { ITarget, PromptState, RequestOutcome } from './types';

interface IEntryBase {
  id: string;
  /** The transcript record that created it (the room pages earlier history by it). */
  seq?: number;
  author: string | null;
  /** Epoch seconds. */
  ts: number;
  body: string;
}

export interface IUsage {
  model: string;
  input_tokens: number;
  output_tokens: number;
  model_calls: number;
  /** What the runtime reported the turn's calls cost; null or missing: nothing reported (your
   * own provider, or a turn from before 0.3). */
  ai_credits?: number | null;
}

/** A prompt once its turn started; `usage` arrives when the turn ends. */
export interface IPromptEntry extends IEntryBase {
  kind: 'prompt';
  author: string;
  target: ITarget | null;
  state: PromptState;
  usage?: IUsage;
  /** `kernel`: sent from a notebook kernel with the author's credentials (the kernel API); a
   * front's name (`slack`, `teams`, `github`): its author acted from there. */
  origin?: string;
  /** The side thread it brings back (../threads.ts). */
  thread?: string;
  /** What the prompt pointed at (../chips.ts), when it pointed at anything. */
  chips?: IShownChip[];
  /** Images and repository files sent with it (../attachments.ts). */
  attachments?: IShownAttachment[];
  /** The files the turn changed, committed on the room's checkpoint ref (`turn.checkpointed`). */
  checkpoint?: ICheckpoint;
  /** Who reverted the turn's checkpoint, if someone did. */
  reverted_by?: string;
  /** Where it was asked, when not in the panel: the pull request comment's URL. */
  link?: string | null;
}

export interface ICheckpoint {
  commit: string;
  files: string[];
  /** Of `files`, those the agent's tools did not name: changed while its shell or a cell ran. */
  unnamed?: string[];
}

/** Something a person said to the room (`POST messages`): never sent to the agent. */
export interface IChatEntry extends IEntryBase {
  kind: 'chat';
  author: string;
}

export type ReplyState = 'streaming' | 'done' | 'partial';

export interface IAssistantEntry extends IEntryBase {
  kind: 'assistant';
  prompt_id: string;
  state: ReplyState;
  /** The title of the agent that wrote it, when not the room's own Copilot (an ACP agent). */
  agent?: string;
}

export interface IReasoningEntry extends IEntryBase {
  kind: 'reasoning';
  prompt_id: string;
  state: ReplyState;
}

/** `stopped`: its turn ended (an abort, a deadline, a restart) before it reported an end;
 * `declined`: its permission was rejected or timed out, so it never ran. */
export type ToolState = 'running' | 'success' | 'error' | 'stopped' | 'declined';

export interface IToolEntry extends IEntryBase {
  kind: 'tool';
  prompt_id: string;
  tool: string;
  summary: string;
  arguments: Record<string, unknown>;
  state: ToolState;
  result?: string;
  /** Seconds. */
  duration?: number | null;
}

/** A custom agent run as a sub-agent task; the body is its description. */
export interface ISubagentEntry extends IEntryBase {
  kind: 'subagent';
  prompt_id: string;
  name: string;
  state: ToolState;
  error?: string | null;
}

/** One step of the agent's plan. */
export interface IPlanStep {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/** The agent's plan for a turn (an ACP agent's), the latest of it: one entry a turn. */
export interface IPlanEntry extends IEntryBase {
  kind: 'plan';
  prompt_id: string | null;
  steps: IPlanStep[];
}

/** The transcript's copy of a card in `approvals`, which stays when the card goes. */
interface IRequestFields {
  prompt_id: string;
  /** shell, write, url, mcp, read, custom-tool, notebook, question. */
  request_kind: string;
  prompt_author: string;
  details: Record<string, string>;
  deadline: number;
  choices: string[];
  allow_freeform: boolean;
  state: RequestOutcome;
  answered_by: string | null;
  feedback?: string | null;
  answer?: string | null;
  /** Who approved, in order (a request that needed two approvers). */
  approvers?: string[];
  /** The approval policy's rule that decided or asked for two approvers. */
  rule?: string | null;
  /** The title of the agent that asked, when not the room's own Copilot (an ACP agent). */
  agent?: string;
}

export interface IPermissionEntry extends IEntryBase, IRequestFields {
  kind: 'permission';
}

export interface IQuestionEntry extends IEntryBase, IRequestFields {
  kind: 'question';
}

/** A line from the room. One about people has a template body (`{0} made {1} a viewer.`) and
 * the usernames it names in `people` (see `names.ts`). */
export interface ISystemEntry extends IEntryBase {
  kind: 'system';
  people?: string[];
}

export interface IAdmissionEntry extends IEntryBase {
  kind: 'admission';
  author: string;
  username: string;
  decision: 'viewer' | 'member' | 'reject';
  people?: string[];
}

/** A steering message the running prompt's author or a host said into its turn. */
export interface ISteeringEntry extends IEntryBase {
  kind: 'steering';
  author: string;
  prompt_id: string;
}

export interface IErrorEntry extends IEntryBase {
  kind: 'error';
  prompt_id: string | null;
}

export type TranscriptEntry =
  | IPromptEntry
  | IChatEntry
  | IAssistantEntry
  | IReasoningEntry
  | IToolEntry
  | ISubagentEntry
  | IPlanEntry
  | IPermissionEntry
  | IQuestionEntry
  | ISystemEntry
  | IAdmissionEntry
  | IErrorEntry
  | ISteeringEntry;

export type EntryKind = TranscriptEntry['kind'];

const KINDS: ReadonlySet<string> = new Set<EntryKind>([
  'prompt',
  'chat',
  'assistant',
  'reasoning',
  'tool',
  'subagent',
  'plan',
  'permission',
  'question',
  'system',
  'admission',
  'error',
  'steering'
]);

/**
 * An entry's plain contents (`Y.Map.toJSON()`) as a typed entry. The server is the only writer,
 * so fields are taken as written; a kind this panel does not know yet shows as a system line
 * rather than not at all.
 */
export function readEntry(raw: Readonly<Record<string, unknown>>): TranscriptEntry {
  const common = {
    id: String(raw.id ?? ''),
    author: typeof raw.author === 'string' ? raw.author : null,
    ts: typeof raw.ts === 'number' ? raw.ts : 0,
    body: typeof raw.body === 'string' ? bidiShown(raw.body) : ''
  };
  if (typeof raw.kind !== 'string' || !KINDS.has(raw.kind)) {
    return { ...common, kind: 'system' };
  }
  return { ...raw, ...common } as TranscriptEntry;
}
