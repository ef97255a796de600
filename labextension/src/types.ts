/** Plain shapes of what the server sends: `GET room` and the live document's entries. */

export type Role = 'host' | 'member' | 'viewer' | 'pending' | 'refused';

export interface IMe {
  username: string;
  display_name: string;
  role: Role;
  verified: boolean;
  avatar_url?: string | null;
  color?: string | null;
  can: string[];
}

export interface IParticipant {
  username: string;
  display_name: string;
  role: Role;
  online: boolean;
  verified: boolean;
  color?: string | null;
  avatar_url?: string | null;
}

export interface IQueueItem {
  id: string;
  author: string;
  text: string;
  target?: { kind: 'skill' | 'agent'; name: string } | null;
  state: string;
  submitted_at: number;
  started_at?: number;
}

export interface IApproval {
  id: string;
  kind: string;
  summary: string;
  details: Record<string, string>;
  prompt_id: string;
  author: string;
  deadline: number;
  choices: string[];
  allow_freeform: boolean;
  state: string;
}

export interface IMeta {
  state?: string;
  agent?: string;
  agent_detail?: string;
  turn_owner?: string | null;
  turn_prompt?: string | null;
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

export interface ISettings {
  admission: string;
  guest_admission: string;
  permission_timeout: number;
  question_timeout: number;
  max_prompt_chars: number;
  turn_timeout: number;
  auto_approve_notebook_edits: boolean;
}
