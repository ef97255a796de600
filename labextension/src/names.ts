/**
 * How the panel names people: by the display name the room document knows (`participants`),
 * never by a username, which is only a tooltip. A system line about people is a template whose
 * `{0}`, `{1}`... stand for the usernames in its `people` (`room/live/document.py`); `nameParts` cuts
 * it into text and people so each person is drawn as a name.
 */
import { SERVER_OWNER, unvouched } from './policy';
import { IParticipant } from './types';

/** The agent that wrote or asks something: its title when another agent is in the room's own
 * Copilot's place (the server leaves it out for Copilot itself). */
export function agentName(title?: string | null): string {
  return title || 'Copilot';
}

/** Someone the room has never seen (a record older than the people list). */
export const SOMEONE = 'someone';

/** The name people know: the display name once the room has seen them. */
export function displayName(username: string, person?: IParticipant | null): string {
  return person?.display_name || (username ? username : SOMEONE);
}

/** A name for text that cannot hold a component (an aria-label, a dialog). */
export function nameOf(
  username: string,
  model: { person(username: string): IParticipant | undefined }
): string {
  return displayName(username, model.person(username));
}

export type NamePart = string | { username: string };

/** A template's text and its people, in order; `{{` and `}}` are braces. A line without people
 * is its text as it is. */
export function nameParts(template: string, people?: readonly string[] | null): NamePart[] {
  if (!people || people.length === 0) {
    return template ? [template] : [];
  }
  const parts: NamePart[] = [];
  let text = '';
  const pattern = /\{\{|\}\}|\{(\d+)\}/g;
  let last = 0;
  for (let match = pattern.exec(template); match; match = pattern.exec(template)) {
    text += template.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[1] === undefined) {
      text += match[0][0];
      continue;
    }
    const username = people[Number(match[1])];
    if (username === undefined) {
      text += match[0]; // not a placeholder of this line: shown as written
      continue;
    }
    if (text) {
      parts.push(text);
      text = '';
    }
    parts.push({ username });
  }
  text += template.slice(last);
  if (text) {
    parts.push(text);
  }
  return parts;
}

/** "unverified" tells a reader something only about a guest whose name nobody vouched for:
 * never about a host (the room trusts them with everything) or the server owner. */
export function vouchedForByNobody(username: string, person: IParticipant): boolean {
  return unvouched(person) && username !== SERVER_OWNER;
}
