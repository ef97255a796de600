/** Fenced code blocks (```) and inline code spans (`x`) in text people wrote, shown as code
 * (components/entries/prompt.tsx). */

/** A prompt's text and its fenced code blocks, in order. A fence is a line starting with three
 * backticks (a language after them is dropped); an unclosed fence runs to the end. */
export function splitFences(text: string): { code: boolean; text: string }[] {
  const parts: { code: boolean; text: string }[] = [];
  let code = false;
  let lines: string[] = [];
  const flush = () => {
    const joined = lines.join('\n');
    if (joined.trim() || code) {
      parts.push({ code, text: joined });
    }
    lines = [];
  };
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('```')) {
      flush();
      code = !code;
    } else {
      lines.push(line);
    }
  }
  flush();
  return parts;
}

/** A line's text and its code spans, in order: a run of backticks opens a span that the next run
 * of as many backticks closes (CommonMark's rule; one space padding both ends is dropped); a run
 * nothing closes is text. */
export function splitCodeSpans(text: string): { code: boolean; text: string }[] {
  const parts: { code: boolean; text: string }[] = [];
  let rest = text;
  let plain = '';
  for (;;) {
    const open = /`+/.exec(rest);
    if (!open) {
      break;
    }
    const after = rest.slice(open.index + open[0].length);
    const close = new RegExp(`(?<!\`)${open[0]}(?!\`)`).exec(after);
    if (!close) {
      plain += rest.slice(0, open.index + open[0].length);
      rest = after;
      continue;
    }
    plain += rest.slice(0, open.index);
    if (plain) {
      parts.push({ code: false, text: plain });
      plain = '';
    }
    let code = after.slice(0, close.index).replace(/\n/g, ' ');
    if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim()) {
      code = code.slice(1, -1);
    }
    parts.push({ code: true, text: code });
    rest = after.slice(close.index + open[0].length);
  }
  if (plain + rest) {
    parts.push({ code: false, text: plain + rest });
  }
  return parts;
}
