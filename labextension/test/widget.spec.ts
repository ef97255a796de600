import { describe, expect, it } from 'vitest';

import pkg from '../package.json';
import { DEFAULT_OPTIONS, MAX_HEIGHT, MODULE_VERSION, readOptions } from '../src/widget/options';

describe('RoomWidget view options', () => {
  it('registers the widget under the package version RoomWidget asks for', () => {
    expect(MODULE_VERSION).toBe(pkg.version);
  });

  it('keeps known parts in their order and drops the rest', () => {
    const options = readOptions({ parts: ['prompt', 'nonsense', 'transcript'], height: 300 });
    expect(options).toEqual({ parts: ['transcript', 'prompt'], height: 300 });
  });

  it('falls back to the defaults for an unreadable output, and clamps the height', () => {
    expect(readOptions(null)).toEqual(DEFAULT_OPTIONS);
    expect(readOptions({ parts: 'transcript', height: 'tall' })).toEqual(DEFAULT_OPTIONS);
    expect(readOptions({ height: 1e9 }).height).toBe(MAX_HEIGHT);
  });
});
