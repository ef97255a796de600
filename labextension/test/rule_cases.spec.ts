/**
 * The panel's rule functions answer what the server's `access/rules.py` answers, case for case:
 * `generated/rule_cases.json` is written from the Python rules over every role, every room's
 * terms and each card shape (`jupyter_copilot_room/rule_cases.py`), so a rule changed on one side
 * only fails here.
 */
import { describe, expect, it } from 'vitest';

import {
  isAdmitted,
  isAtTheDoor,
  mayAnswer,
  mayApprove,
  mayChangeRole,
  mayRevert,
  mayRevertAnyway,
  maySteer,
  mayWithdraw,
  stillMayApprove,
  waitsOn,
  whoApproves
} from '../src/policy';
import { IAnswerers, IApproval, IMe, IParticipant, IQueueItem, Role } from '../src/types';
import table from './generated/rule_cases.json';

interface IRuleCases {
  people: { username: string; role: Role; can: string[] }[];
  cards: IAnswerers[];
  answers: [number, number, boolean, boolean, boolean][];
  words: [number, string, string, string][];
  ownOrAny: [number, string, boolean, boolean, boolean, boolean][];
  changeRole: [number, Role, boolean][];
  roles: [Role, boolean, boolean][];
}

const cases = table as unknown as IRuleCases;

const people: IMe[] = cases.people.map(person => ({
  ...person,
  display_name: person.username,
  verified: true
}));

function participant(role: Role): IParticipant {
  return { username: 'dave', display_name: 'Dave', role, online: true, verified: true };
}

function item(author: string, state: IQueueItem['state']): IQueueItem {
  return { id: 'p', author, text: '', target: null, state, submitted_at: 0 };
}

function approval(answerers: IAnswerers): IApproval {
  return { answerers } as IApproval;
}

describe('the panel agrees with access/rules.py', () => {
  it('has cases to check', () => {
    expect(cases.answers.length).toBeGreaterThan(500);
    expect(cases.people.length).toBeGreaterThan(20);
  });

  it('on who may answer, approve, and is waited on, for every card and person', () => {
    const differ = cases.answers.filter(([card, me, answer, approve, waits]) => {
      const [person, answerers] = [people[me], cases.cards[card]];
      return (
        mayAnswer(person, answerers) !== answer ||
        mayApprove(person, answerers) !== approve ||
        waitsOn(person, answerers) !== waits
      );
    });
    expect(differ).toEqual([]);
  });

  it('on the words that say who approves and who still may', () => {
    const said = cases.words.map(([card]) => {
      const answerers = cases.cards[card];
      return [
        card,
        stillMayApprove(approval(answerers)),
        whoApproves(answerers, 1),
        whoApproves(answerers, 2)
      ];
    });
    expect(said).toEqual(cases.words);
  });

  it("on withdrawing, reverting and steering one's own or anyone's", () => {
    const said = cases.ownOrAny.map(([me, author]) => {
      const person = people[me];
      return [
        me,
        author,
        mayWithdraw(person, item(author, 'submitted')),
        mayRevert(person, author),
        maySteer(person, item(author, 'working')),
        mayRevertAnyway(person)
      ];
    });
    expect(said).toEqual(cases.ownOrAny);
  });

  it('on who may change whose role', () => {
    const said = cases.changeRole.map(([me, role]) => [
      me,
      role,
      mayChangeRole(people[me], participant(role))
    ]);
    expect(said).toEqual(cases.changeRole);
  });

  it('on who is in the room and who is at the door', () => {
    const said = cases.roles.map(([role]) => [role, isAdmitted({ role }), isAtTheDoor({ role })]);
    expect(said).toEqual(cases.roles);
  });
});
