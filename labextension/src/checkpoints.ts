/** What the panel says about a turn's checkpoint: the files it changed, what a revert does. */

/** The files of a checkpoint the agent did not name, in words (none: ''). */
export function unnamedLine(unnamed: readonly string[] | undefined): string {
  return unnamed?.length ? `changed while the agent's shell ran: ${unnamed.join(', ')}` : '';
}

/** The chip's label: "Changed 1 file", "Changed 3 files". */
export function changedLabel(files: readonly string[]): string {
  return `Changed ${files.length} file${files.length === 1 ? '' : 's'}`;
}

/** The revert dialog's question, in words that agree with the count. */
export function revertQuestion(files: readonly string[]): string {
  if (files.length === 1) {
    return `${files[0]} goes back to how it was before the turn.`;
  }
  return `These ${files.length} files go back to how they were before the turn: ${files.join(', ')}.`;
}
