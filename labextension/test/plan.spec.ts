// @vitest-environment jsdom
/** An agent's plan is one entry a turn, read from the document as the server writes it and
 * shown as a checklist of its latest steps. */
import React, { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';

import { PlanEntry } from '../src/components/entries/plan';
import { IPlanEntry, readEntry } from '../src/entries';

describe("the agent's plan", () => {
  it('is read as a plan and shown as its steps, how far it got and which one runs', () => {
    const entry = readEntry({
      id: 'e1',
      kind: 'plan',
      author: 'copilot',
      body: '',
      prompt_id: 'p1',
      steps: [
        { content: 'Read the data', status: 'completed' },
        { content: 'Chart \u202ethe totals', status: 'in_progress' },
        { content: 'Write it up', status: 'pending' }
      ]
    });
    expect(entry.kind).toBe('plan');
    const host = document.createElement('div');
    act(() =>
      createRoot(host).render(React.createElement(PlanEntry, { entry: entry as IPlanEntry }))
    );
    expect(host.querySelector('.jp-CopilotRoom-status')?.textContent).toBe('1 of 3 done');
    const steps = [...host.querySelectorAll('li')];
    expect(steps.map(step => step.dataset.status)).toEqual(['completed', 'in_progress', 'pending']);
    expect(steps[1].textContent).toBe('→ Chart ⟨U+202E⟩the totals');
    expect(
      steps.map(step => step.querySelector('[aria-label]')?.getAttribute('aria-label'))
    ).toEqual(['done', 'in progress', 'to do']);
  });
});
