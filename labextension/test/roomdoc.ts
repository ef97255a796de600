/**
 * Room documents for the tests, written the way `jupyter_copilot_room/room/document.py` writes
 * them: Maps of plain values, each transcript entry with a `body` Y.Text.
 */
import * as Y from 'yjs';

import { IAnswerers, IMe } from '../src/types';

export function roomDoc(): Y.Doc {
  return new Y.Doc();
}

export function addEntry(
  doc: Y.Doc,
  fields: Record<string, unknown> & { id: string; kind: string; body?: string }
): Y.Map<unknown> {
  const { body = '', ...rest } = fields;
  const entry = new Y.Map<unknown>(
    Object.entries({ author: 'copilot', ts: 1700000000, ...rest, body: new Y.Text(body) })
  );
  doc.getArray<Y.Map<unknown>>('transcript').push([entry]);
  return entry;
}

/** A card's `answerers` as the server's rules write them (`access/rules.py`). */
export function answerers(
  users: string[],
  roles: IMe['role'][] = ['host'],
  approved: string[] = [],
  needed = 1
): IAnswerers {
  return { users, roles, approved, needed };
}

export function addPerson(doc: Y.Doc, username: string, fields: Record<string, unknown>): void {
  doc.getMap('participants').set(
    username,
    new Y.Map<unknown>(
      Object.entries({
        display_name: username[0].toUpperCase() + username.slice(1),
        role: 'member',
        verified: true,
        online: true,
        avatar_url: null,
        color: null,
        // as the server writes it: a person at the door waits on the hosts
        answerers: fields.role === 'pending' ? answerers([], ['host']) : null,
        ...fields
      })
    )
  );
}

export function addQueued(doc: Y.Doc, fields: Record<string, unknown> & { id: string }): void {
  doc.getArray('queue').push([
    new Y.Map<unknown>(
      Object.entries({
        author: 'bob',
        text: 'a prompt',
        target: null,
        state: 'submitted',
        submitted_at: 1700000000,
        ...fields
      })
    )
  ]);
}

export function addCard(doc: Y.Doc, id: string, fields: Record<string, unknown>): void {
  doc.getMap('approvals').set(
    id,
    new Y.Map<unknown>(
      Object.entries({
        kind: 'shell',
        summary: 'echo hi',
        details: {},
        prompt_id: 'p1',
        author: 'bob',
        deadline: 1700000120,
        choices: [],
        allow_freeform: true,
        state: 'pending',
        answered_by: null,
        answerers: answerers([(fields.author as string | undefined) ?? 'bob']),
        ...fields
      })
    )
  );
}

const ACTIONS: Record<string, string[]> = {
  viewer: ['watch'],
  member: ['watch', 'submit', 'withdraw_own', 'answer_own', 'read_transcript', 'steer_own'],
  host: [
    'watch',
    'submit',
    'withdraw_own',
    'withdraw_any',
    'answer_own',
    'answer_any',
    'abort',
    'manage_people',
    'edit_settings',
    'read_transcript',
    'start_agent',
    'steer_own',
    'steer_any',
    'choose_model'
  ],
  pending: [],
  refused: []
};

/** `GET room`'s `me`, with the `can` list the server's role table gives that role. */
export function me(username: string, role: IMe['role']): IMe {
  return {
    username,
    display_name: username,
    role,
    verified: true,
    can: ACTIONS[role]
  };
}
