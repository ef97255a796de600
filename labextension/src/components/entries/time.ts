/** An entry's time (epoch seconds) as the reader's clock shows it. */
export function formatTime(ts?: number): string {
  return ts ? new Date(ts * 1000).toLocaleTimeString() : '';
}
