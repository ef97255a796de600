/** Fenced code blocks (```) in text people wrote, shown as code (components/entries/prompt.tsx). */

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
