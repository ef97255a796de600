// @vitest-environment jsdom
/** The room's outside services (fronts, e.g. a pull request on GitHub): the header names each
 * one that is not well, and a prompt asked there links back to where it was asked, when its
 * link is a web URL. Both read from the document as the server writes it. (The header and the
 * prompt entry themselves load Lumino, which needs a browser: tests/browser.) */
import React, { act } from 'react';
import { createRoot } from 'react-dom/client';
import { beforeEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';

import { PromptLink, PromptOrigin } from '../src/components/entries/link';
import { FrontStatus } from '../src/components/fronts';
import { IPromptEntry } from '../src/entries';
import { RoomModel } from '../src/model';
import { addEntry, roomDoc } from './roomdoc';

function modelOf(doc: Y.Doc): RoomModel {
  const model = new RoomModel();
  model.setDocument(doc);
  return model;
}

function rendered(element: React.ReactElement): HTMLElement {
  const host = document.createElement('div');
  act(() => createRoot(host).render(element));
  return host;
}

function header(fronts: unknown): HTMLElement {
  const doc = roomDoc();
  doc.getMap('meta').set('agent', 'demo model');
  doc.getMap('meta').set('fronts', fronts);
  return rendered(React.createElement(FrontStatus, { model: modelOf(doc) }));
}

function promptWith(link: string | null): HTMLElement {
  const doc = roomDoc();
  addEntry(doc, {
    id: 'p1',
    kind: 'prompt',
    author: 'bob',
    body: 'fix the test',
    target: null,
    state: 'done',
    link
  });
  const entry = modelOf(doc).entries[0].read() as IPromptEntry;
  return rendered(React.createElement(PromptLink, { link: entry.link }));
}

beforeEach(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
});

describe("the header's fronts", () => {
  it('names each front that is not well, by its display name, with its status', () => {
    const host = header({ github: 'waiting', slack: 'disconnected', matrix: 'bad token' });
    const items = [...host.querySelectorAll<HTMLElement>('[data-front]')];
    expect(items.map(item => [item.dataset.front, item.textContent])).toEqual([
      ['github', 'GitHub: waiting'],
      ['slack', 'Slack: disconnected'],
      ['matrix', 'matrix: bad token']
    ]);
    expect(items[0].title).toBe(
      'GitHub says: waiting. The room works as before; what GitHub missed meanwhile follows once it answers.'
    );
  });

  it('shows nothing while every front is well', () => {
    expect(header(null).querySelector('[data-front]')).toBeNull();
    expect(header({}).querySelector('[data-front]')).toBeNull();
  });
});

function originOf(origin: string | null, link: string | null = null): HTMLElement {
  const doc = roomDoc();
  addEntry(doc, {
    id: 'p1',
    kind: 'prompt',
    author: 'bob',
    body: 'fix the test',
    target: null,
    state: 'done',
    ...(origin ? { origin } : {}),
    link
  });
  const entry = modelOf(doc).entries[0].read() as IPromptEntry;
  return rendered(React.createElement(PromptOrigin, { origin: entry.origin, link: entry.link }));
}

describe("a prompt's origin", () => {
  it('says the front or the kernel a prompt came from', () => {
    expect(originOf('slack').textContent).toBe('from Slack');
    expect(originOf('teams').textContent).toBe('from Teams');
    expect(originOf('github').textContent).toBe('from GitHub');
    expect(originOf('kernel').textContent).toBe('(from a notebook kernel)');
    expect(originOf('matrix').querySelector('[data-origin]')?.textContent).toBe('from matrix');
  });

  it("says nothing for the panel's own prompts, nor twice beside a link", () => {
    expect(originOf(null).textContent).toBe('');
    expect(originOf('github', 'https://github.com/o/r/pull/7#issuecomment-1').textContent).toBe('');
  });
});

describe("a prompt's link", () => {
  it('links to the pull request comment it was asked in, in a new tab', () => {
    const link = promptWith('https://github.com/o/r/pull/7#issuecomment-1').querySelector('a');
    expect(link?.textContent).toBe('on GitHub');
    expect(link?.getAttribute('href')).toBe('https://github.com/o/r/pull/7#issuecomment-1');
    expect(link?.target).toBe('_blank');
    expect(link?.rel).toBe('noopener noreferrer');
  });

  it('names another web source as a source', () => {
    expect(promptWith('https://example.com/note').querySelector('a')?.textContent).toBe('source');
    expect(promptWith('https://git.example.com/o/r/pull/7').querySelector('a')?.textContent).toBe(
      'on GitHub'
    );
  });

  it('is not a link unless it is an http(s) URL', () => {
    for (const link of [
      'javascript:alert(1)',
      'data:text/html,hi',
      '/o/r/pull/7',
      'nonsense',
      null
    ]) {
      expect(promptWith(link).querySelector('a')).toBeNull();
    }
  });
});
