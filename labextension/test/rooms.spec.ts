import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { IRoomDirectory, IRoomEntry, IRoomList, RoomAPIError } from '../src/api';
import { EarlierHistory } from '../src/history';
import { RoomModel } from '../src/model';
import { IPromptDraft } from '../src/room';
import {
  IOpenRoom,
  mayCreateRooms,
  roomDetails,
  roomFromLink,
  roomLink,
  Rooms,
  ROOMS_POLL_MS,
  suggestRoomName,
  waitingElsewhere,
  withoutRoomParam
} from '../src/rooms';
import { addQueued, roomDoc } from './roomdoc';

function entry(name: string, fields: Partial<IRoomEntry> = {}): IRoomEntry {
  return {
    name,
    repository: name === 'main' ? '' : name,
    state: 'idle',
    people: [],
    role: 'member',
    waiting_on_you: 0,
    created_by: name === 'main' ? '' : 'alice',
    ...fields
  };
}

describe('the rooms list, in words', () => {
  it('counts what waits on the reader in the other rooms only', () => {
    const rooms = [
      entry('main', { waiting_on_you: 1 }),
      entry('data', { waiting_on_you: 2 }),
      entry('web'),
      entry('ops', { waiting_on_you: 1 })
    ];
    expect(waitingElsewhere(rooms, 'main')).toEqual({ count: 3, rooms: ['data', 'ops'] });
    expect(waitingElsewhere(rooms, 'data')).toEqual({ count: 2, rooms: ['main', 'ops'] });
    expect(waitingElsewhere([entry('main', { waiting_on_you: 4 })], 'main').count).toBe(0);
  });

  it("says a room's folder, its agent's state, who is in and what the reader waits for", () => {
    const people = [{ username: 'bob', name: 'Bob', role: 'member' }];
    expect(roomDetails(entry('main', { people }))).toBe('server root · idle · 1 person');
    const knocking = { repository: 'projects/data', role: 'pending', at_the_door: true };
    expect(roomDetails(entry('data', { ...knocking, state: 'running' }))).toMatch(
      /^projects\/data\/ · .+ · nobody in · you asked to join$/
    );
    // Pending is only what its door would say: asking to join is opening the room.
    expect(roomDetails(entry('data', { ...knocking, at_the_door: false, state: 'new' }))).toBe(
      'projects/data/ · not started yet · nobody in · open it to ask to join'
    );
    expect(roomDetails(entry('ops', { waiting_on_you: 2, people: [...people, ...people] }))).toBe(
      'ops/ · idle · 2 people · 2 waiting on you'
    );
    const refused = { error: 'insufficient_storage', message: 'The disk is full.' };
    expect(roomDetails(entry('main', { state: 'unavailable', start_error: refused }))).toMatch(
      / · nobody in · could not start: The disk is full\.$/
    );
  });

  it('lets the reader create rooms when the server says so, else when they host main', () => {
    expect(mayCreateRooms({ rooms: [entry('main', { role: 'member' })], can_create: true })).toBe(
      true
    );
    expect(mayCreateRooms({ rooms: [entry('main', { role: 'host' })], can_create: false })).toBe(
      false
    );
    expect(mayCreateRooms({ rooms: [entry('main', { role: 'host' })] })).toBe(true);
    expect(mayCreateRooms({ rooms: [entry('main'), entry('data', { role: 'host' })] })).toBe(false);
    expect(mayCreateRooms({ rooms: [] })).toBe(false);
  });

  it("suggests a room name from a folder's name", () => {
    expect(suggestRoomName('My Analysis (2)')).toBe('my-analysis-2');
    expect(suggestRoomName('_private')).toBe('private');
    expect(suggestRoomName('x'.repeat(60))).toHaveLength(40);
  });
});

describe('links to a room', () => {
  it('reads the room a link names and takes it out of the address, keeping the rest', () => {
    const href = 'http://lab.test/base/lab/tree/a.ipynb?copilot-room=data&token=t#cell';
    expect(roomFromLink(href)).toBe('data');
    expect(withoutRoomParam(href)).toBe('http://lab.test/base/lab/tree/a.ipynb?token=t#cell');
    expect(roomFromLink('http://lab.test/base/lab?copilot-room=')).toBeNull();
    expect(roomFromLink('http://lab.test/base/lab')).toBeNull();
  });

  it('makes a link that opens JupyterLab on the room', () => {
    const link = roomLink('http://lab.test/base/lab', 'data-2');
    expect(link).toBe('http://lab.test/base/lab?copilot-room=data-2');
    expect(roomFromLink(link)).toBe('data-2');
  });
});

/** A directory answering from a list the test changes. */
class FakeDirectory implements IRoomDirectory {
  list_: IRoomList = { rooms: [entry('main', { role: 'host' })] };
  fail = false;
  async list(): Promise<IRoomList> {
    if (this.fail) {
      throw new RoomAPIError(0, 'network', 'unreachable');
    }
    return structuredClone(this.list_);
  }
  async create(name: string, repository: string): Promise<IRoomEntry> {
    if (this.list_.rooms.some(room => room.name === name)) {
      throw new RoomAPIError(409, 'room_exists', `There is a room named ${name} already.`);
    }
    const made = entry(name, { repository, role: 'host' });
    this.list_.rooms.push(made);
    return made;
  }
}

/** Each room its own model (and document), as `openRoom` builds them, without a socket. */
function fakeOpen(opened: IOpenRoom[]) {
  return (name: string, draft: IPromptDraft): IOpenRoom => {
    const model = new RoomModel();
    const doc = roomDoc();
    addQueued(doc, {
      id: `${name}-prompt`,
      author: 'alice',
      text: `in ${name}`,
      state: 'submitted'
    });
    model.setDocument(doc);
    const history = new EarlierHistory({ client: { history: vi.fn() }, model });
    let disposed = false;
    const room: IOpenRoom = {
      name,
      model,
      history,
      draft,
      client: {} as IOpenRoom['client'],
      rendermime: {} as IOpenRoom['rendermime'],
      get isDisposed() {
        return disposed;
      },
      dispose: () => {
        disposed = true;
        model.setDocument(null);
        model.dispose();
      }
    };
    opened.push(room);
    return room;
  };
}

describe('switching rooms', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("shows the new room afresh: the old room's connection closes, none of its document shows", async () => {
    const opened: IOpenRoom[] = [];
    const directory = new FakeDirectory();
    directory.list_.rooms.push(entry('data'));
    const rooms = new Rooms({ directory, open: fakeOpen(opened) });
    const switched = vi.fn();
    rooms.currentChanged.connect((_, room) => switched(room.name));
    expect(rooms.current.name).toBe('main');

    rooms.switchTo('data');
    expect(switched).toHaveBeenCalledWith('data');
    expect(opened[0].isDisposed).toBe(true);
    expect(rooms.current.model.queue.map(item => item.id)).toEqual(['data-prompt']);

    rooms.switchTo('data'); // already there: nothing happens
    expect(opened).toHaveLength(2);
    rooms.switchTo('main');
    expect(opened[1].isDisposed).toBe(true);
    expect(rooms.current).toBe(opened[2]);
    expect(rooms.current.model.queue.map(item => item.id)).toEqual(['main-prompt']);
  });

  it("keeps the reader's prompt draft per room", () => {
    const rooms = new Rooms({ directory: new FakeDirectory(), open: fakeOpen([]) });
    rooms.current.draft.text = 'half a question for main';
    rooms.switchTo('data');
    expect(rooms.current.draft.text).toBe('');
    rooms.current.draft.text = 'for data';
    rooms.switchTo('main');
    expect(rooms.current.draft.text).toBe('half a question for main');
  });

  it('polls the list only while asked to, and keeps the last list when the server is away', async () => {
    const directory = new FakeDirectory();
    const rooms = new Rooms({ directory, open: fakeOpen([]) });
    const changed = vi.fn();
    rooms.listChanged.connect(changed);
    expect(rooms.list).toEqual([]);
    rooms.setPolling(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(rooms.list.map(room => room.name)).toEqual(['main']);
    expect(rooms.canCreate).toBe(true);

    directory.list_.rooms.push(entry('data', { waiting_on_you: 1 }));
    await vi.advanceTimersByTimeAsync(ROOMS_POLL_MS);
    expect(rooms.list.map(room => room.name)).toEqual(['main', 'data']);
    await vi.advanceTimersByTimeAsync(ROOMS_POLL_MS);
    expect(changed).toHaveBeenCalledTimes(2); // an unchanged list is no change

    directory.fail = true;
    await vi.advanceTimersByTimeAsync(ROOMS_POLL_MS);
    expect(rooms.list.map(room => room.name)).toEqual(['main', 'data']);

    directory.fail = false;
    rooms.setPolling(false);
    directory.list_.rooms.push(entry('web'));
    await vi.advanceTimersByTimeAsync(ROOMS_POLL_MS * 3);
    expect(rooms.list).toHaveLength(2);
  });

  it('switches to a room it created; a refusal leaves the reader where they were', async () => {
    const rooms = new Rooms({ directory: new FakeDirectory(), open: fakeOpen([]) });
    const made = await rooms.create('analysis', 'projects/analysis');
    expect(made.name).toBe('analysis');
    expect(rooms.current.name).toBe('analysis');
    expect(rooms.list.map(room => room.name)).toEqual(['main', 'analysis']);

    await expect(rooms.create('main', '')).rejects.toThrow('There is a room named main already.');
    expect(rooms.current.name).toBe('analysis');
  });
});
