import { describe, expect, it } from 'vitest';

import { amount, quotaWords, reached, roomUsageWords, usageToday } from '../src/components/usage';
import { IUsageSums } from '../src/types';

const sums: IUsageSums = {
  premium_requests: 2,
  input_tokens: 900,
  output_tokens: 100,
  turns: 3
};

describe('usage and budgets in People', () => {
  it('counts tokens in and out together, premium requests as billed', () => {
    expect(amount(sums, 'tokens')).toBe(1000);
    expect(amount(sums, 'premium_requests')).toBe(2);
    expect(amount(undefined, 'tokens')).toBe(0);
  });

  it('counts AI Credits, and none on a day summed before the room knew them', () => {
    expect(amount({ ...sums, ai_credits: 1.25 }, 'ai_credits')).toBe(1.25);
    expect(amount(sums, 'ai_credits')).toBe(0);
    expect(reached({ ...sums, ai_credits: 20 }, { ai_credits: 20 })).toEqual(['ai_credits']);
    expect(reached(sums, { ai_credits: 20 })).toEqual([]);
  });

  it('names the caps a person reached, none when there are no caps', () => {
    expect(reached(sums, { tokens: 1000, premium_requests: 5 })).toEqual(['tokens']);
    expect(reached(sums, { tokens: 1001 })).toEqual([]);
    expect(reached(sums, undefined)).toEqual([]);
  });

  it("says the room's day, and that AI Credits do not apply to the server's own provider", () => {
    const usage = { day: '2026-12-01', room: sums, people: { bob: sums }, lifted: [] };
    const now = new Date('2026-12-01T12:00:00Z');
    expect(roomUsageWords({ usage, ai_credits_apply: true }, now)).toBe(
      'Today (UTC): 2 premium requests · 1,000 tokens · 3 turns'
    );
    expect(roomUsageWords({ usage, ai_credits_apply: false }, now)).toBe(
      "Today (UTC): 2 premium requests · 1,000 tokens · 3 turns · no AI Credits: this room's model is not billed through Copilot"
    );
    expect(roomUsageWords({ ai_credits_apply: false }, now)).toBeNull();
  });

  it("shows only today's usage (UTC): a new day starts from nothing", () => {
    const usage = { day: '2026-12-01', room: sums, people: { bob: sums }, lifted: [] };
    expect(usageToday({ usage }, new Date('2026-12-01T23:59:00Z'))).toBe(usage);
    expect(usageToday({ usage }, new Date('2026-12-02T00:00:00Z'))).toBeNull();
    expect(usageToday({})).toBeNull();
  });
});

describe("the Copilot seat's quota in the header", () => {
  it('says what is left of the entitlement, the share and when it resets', () => {
    const quota = {
      entitlement: 300,
      used: 180,
      remaining_percentage: 40,
      unlimited: false,
      resets_at: '2027-01-01T00:00:00.000Z'
    };
    expect(quotaWords(quota, 'en-GB')).toBe('120 of 300 premium requests left (40%), resets 1 Jan');
    expect(quotaWords({ ...quota, resets_at: null }, 'en-GB')).toBe(
      '120 of 300 premium requests left (40%)'
    );
    expect(quotaWords({ ...quota, used: 320, remaining_percentage: 0 })).toMatch(/^0 of 300/);
    expect(quotaWords({ ...quota, unlimited: true })).toBe('Premium requests: unlimited');
  });
});
