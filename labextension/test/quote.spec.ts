import { describe, expect, it } from 'vitest';

import { contentsOf } from '../src/exporting';
import { QuoteBox, quoteMarkdown, withQuote } from '../src/quote';

describe('quoting into the prompt', () => {
  it('quotes every line and says who said it', () => {
    expect(quoteMarkdown('use pandas\n\nnot polars\n', 'Bob')).toBe(
      '> Bob said:\n>\n> use pandas\n>\n> not polars\n\n'
    );
  });

  it('adds a quote after what is typed, a blank line between', () => {
    const quote = quoteMarkdown('yes', 'Copilot');
    expect(withQuote('', quote)).toBe(quote);
    expect(withQuote('  \n', quote)).toBe(quote);
    expect(withQuote('Please do this:\n', quote)).toBe(`Please do this:\n\n${quote}`);
  });

  it('hands each quote to the prompt box listening', () => {
    const box = new QuoteBox();
    const got: string[] = [];
    box.quoted.connect((_, quote) => got.push(quote));
    box.quote('a **bold** plan', 'Alice');
    expect(got).toEqual(['> Alice said:\n>\n> a **bold** plan\n\n']);
  });
});

describe('saving an export to open it', () => {
  it('saves a notebook as JSON and anything else as text', () => {
    const notebook = '{"cells": [], "nbformat": 4}';
    expect(contentsOf('ipynb', notebook)).toEqual({
      type: 'notebook',
      format: 'json',
      content: { cells: [], nbformat: 4 }
    });
    expect(contentsOf('md', '# Room')).toEqual({ type: 'file', format: 'text', content: '# Room' });
  });
});
