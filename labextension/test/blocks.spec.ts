import { Marked } from 'marked';
import { describe, expect, it } from 'vitest';

import { splitBlocks } from '../src/blocks';

/** Markdown as JupyterLab's parser turns it into HTML (marked, GitHub-flavoured); blank lines
 * between two elements (a raw HTML block keeps those that followed it) show as one. */
const marked = new Marked({ gfm: true, async: false });
const html = (text: string) => (marked.parse(text) as string).replace(/>\n+</g, '>\n<');

function rendered(text: string): string {
  const { finished, open } = splitBlocks(text);
  return [...finished, open].map(html).join('');
}

const FENCE_WITH_BLANKS = [
  'Here is the script:',
  '',
  '```python',
  'def f():',
  '    return 1',
  '',
  '',
  'print(f())',
  '```',
  '',
  'It prints 1.'
].join('\n');

const TRICKY: Record<string, string> = {
  'a fence with blank lines inside': FENCE_WITH_BLANKS,
  'a tilde fence holding a backtick fence': '~~~\n```\n\nnot closed\n~~~\n\nafter',
  'a longer fence closed only by as long a fence':
    '````md\n```\n\ninside\n```\n\nstill inside\n````\n\nout',
  'a fence inside a list item': '1. Run:\n\n   ```sh\n   make\n\n   make test\n   ```\n\n2. Done.',
  'a loose list': '- one\n\n- two\n\n  more of two\n\n- three\n\nAfter the list.',
  'an ordered list with tens': '9. nine\n\n10. ten\n\n11. eleven\n\nEnd.',
  'a table': 'Results:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nThat is all.',
  headings: '# Title\n\nText.\n\n## Part\n\nMore\ntext.\n\nSetext\n======\n\nLast.',
  'indented code': 'Code:\n\n    x = 1\n\n    y = 2\n\nDone.',
  quotes: '> one\n\n> two\n\nplain',
  'a reference used before it is defined': 'See [the docs][d].\n\nMore.\n\n[d]: https://x.org',
  'an HTML comment with blank lines': 'a\n\n<!--\n\nhidden\n\n-->\n\nb',
  'a pre block with blank lines': 'a\n\n<pre>\nx\n\ny\n</pre>\n\nb',
  'display math with blank lines': 'a\n\n$$\nx\n\n= 1\n$$\n\nb',
  'a thematic break and emphasis': 'a\n\n---\n\n*b*\n\n***\n\nc'
};

describe("a streaming reply's Markdown blocks", () => {
  it('are cut at blank lines before a new block, and the last one stays open', () => {
    expect(splitBlocks('One.\n\nTwo.\n\nThree')).toEqual({
      finished: ['One.\n', 'Two.\n'],
      open: 'Three'
    });
    // The next block has not begun: a blank line alone cuts nothing yet.
    expect(splitBlocks('One.\n\n')).toEqual({ finished: [], open: 'One.\n\n' });
    expect(splitBlocks(FENCE_WITH_BLANKS).finished).toEqual([
      'Here is the script:\n',
      '```python\ndef f():\n    return 1\n\n\nprint(f())\n```\n'
    ]);
  });

  it('join back to the text', () => {
    for (const text of Object.values(TRICKY)) {
      const { finished, open } = splitBlocks(text);
      expect([...finished, open].join('\n')).toBe(text);
    }
  });

  for (const [name, text] of Object.entries(TRICKY)) {
    it(`render as the whole text does, at every length while it streams: ${name}`, () => {
      for (let end = 1; end <= text.length; end++) {
        const prefix = text.slice(0, end);
        expect(rendered(prefix), JSON.stringify(prefix)).toBe(html(prefix));
      }
    });

    it(`never change once finished, however the text grows: ${name}`, () => {
      let before: string[] = [];
      for (let end = 1; end <= text.length; end++) {
        const { finished } = splitBlocks(text.slice(0, end));
        if (!text.slice(0, end).includes(']:')) {
          expect(finished.slice(0, before.length)).toEqual(before);
        }
        before = finished;
      }
    });
  }

  it('are not cut where a list or indented text may go on', () => {
    expect(splitBlocks('- a\n\n- b').finished).toEqual([]);
    expect(splitBlocks('- a\n\n  b').finished).toEqual([]);
    expect(splitBlocks('1. a\n\n2').finished).toEqual([]);
    expect(splitBlocks('- a\n\nb').finished).toEqual(['- a\n']);
  });
});
