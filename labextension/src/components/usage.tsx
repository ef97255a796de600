/**
 * Usage and budgets in the People section: what the room and each person used today (UTC), as
 * the server sums the records into `meta.usage`, against the daily caps in `meta.budgets`; a
 * host lifts one person's reached cap for the day here (the server decides, `manage_people`).
 */
import React from 'react';

import { IRoomClient } from '../api';
import { IRoomModel } from '../model';
import { displayName } from '../names';
import { can } from '../policy';
import { BudgetUnit, IBudgets, IMeta, ISeatQuota, IUsageSums, IUsageToday } from '../types';
import { IAction } from './action';

const UNITS: BudgetUnit[] = ['ai_credits', 'premium_requests', 'tokens'];
const LABELS: Record<BudgetUnit, string> = {
  ai_credits: 'AI Credits',
  premium_requests: 'premium requests',
  tokens: 'tokens'
};

/** `meta.usage` if it is today's (UTC), else null: a new day starts from nothing. */
export function usageToday(meta: IMeta, now = new Date()): IUsageToday | null {
  const usage = meta.usage;
  return usage && usage.day === now.toISOString().slice(0, 10) ? usage : null;
}

export function amount(sums: IUsageSums | undefined, unit: BudgetUnit): number {
  if (!sums) {
    return 0;
  }
  return unit === 'tokens' ? sums.input_tokens + sums.output_tokens : (sums[unit] ?? 0);
}

/** The caps of one scope that `sums` reached, as "tokens" etc. */
export function reached(
  sums: IUsageSums | undefined,
  caps: IBudgets['per_person'] | undefined
): BudgetUnit[] {
  return UNITS.filter(unit => caps?.[unit] !== undefined && amount(sums, unit) >= caps[unit]!);
}

function number(n: number): string {
  return n >= 10000
    ? `${(n / 1000).toLocaleString('en', { maximumFractionDigits: 1 })}k`
    : n.toLocaleString('en', { maximumFractionDigits: 2 });
}

function turns(n: number): string {
  return n === 1 ? '1 turn' : `${n} turns`;
}

/** "1.2 AI Credits · 2 premium requests · 12.3k tokens", each with its cap ("of 50") where there
 * is one; credits and premium requests only once spent or capped (never with a provider). */
function describe(sums: IUsageSums | undefined, caps: IBudgets['per_person'] | undefined): string {
  return UNITS.filter(unit => unit === 'tokens' || amount(sums, unit) > 0 || caps?.[unit])
    .map(unit => {
      const cap = caps?.[unit];
      return `${number(amount(sums, unit))}${cap !== undefined ? ` of ${number(cap)}` : ''} ${LABELS[unit]}`;
    })
    .join(' · ');
}

/** The room's line: "Today (UTC): 12.3k tokens · 4 turns", caps named, and where the model
 * is the server's own provider, that AI Credits do not apply; null before the first turn of a
 * room without caps. */
export function roomUsageWords(meta: IMeta, now = new Date()): string | null {
  const usage = usageToday(meta, now);
  const caps = meta.budgets?.room;
  if (!usage && Object.keys(caps ?? {}).length === 0) {
    return null;
  }
  const full = reached(usage?.room, caps).length > 0;
  const parts = [describe(usage?.room, caps), turns(usage?.room.turns ?? 0)];
  if (full) {
    parts.push('room cap reached until midnight UTC');
  }
  if (meta.ai_credits_apply === false) {
    parts.push("no AI Credits: this room's model is not billed through Copilot");
  }
  return `Today (UTC): ${parts.join(' · ')}`;
}

export function RoomUsage(props: { model: IRoomModel }): JSX.Element | null {
  const { meta } = props.model;
  const words = roomUsageWords(meta);
  if (words === null) {
    return null;
  }
  const full = reached(usageToday(meta)?.room, meta.budgets?.room).length > 0;
  return (
    <p className="jp-CopilotRoom-roomUsage" data-reached={full}>
      {words}
    </p>
  );
}

/** The seat's quota in words: "120 of 300 premium requests left (40%), resets 1 Jan". */
export function quotaWords(quota: ISeatQuota, locale?: string): string {
  if (quota.unlimited) {
    return 'Premium requests: unlimited';
  }
  const left = Math.max(0, Math.round(quota.entitlement - quota.used));
  const percent = Math.round(quota.remaining_percentage);
  let words = `${left} of ${quota.entitlement} premium requests left (${percent}%)`;
  const resets = quota.resets_at ? new Date(quota.resets_at) : null;
  if (resets && !isNaN(resets.getTime())) {
    const day = resets.toLocaleDateString(locale, { day: 'numeric', month: 'short' });
    words += `, resets ${day}`;
  }
  return words;
}

/** The header's reading of the Copilot seat's premium requests, where the runtime gives one. */
export function SeatQuota(props: { model: IRoomModel }): JSX.Element | null {
  const quota = props.model.meta.copilot_quota;
  if (!quota) {
    return null;
  }
  const low = !quota.unlimited && quota.remaining_percentage <= 10;
  return (
    <span
      className="jp-CopilotRoom-quota"
      data-low={low}
      title="What the Copilot seat that answers this room has left this period"
    >
      {quotaWords(quota)}
    </span>
  );
}

/** A person's share of today, and for hosts "Lift cap" once they reached theirs. */
export function PersonUsage(props: {
  model: IRoomModel;
  client: IRoomClient;
  username: string;
  action: IAction;
}): JSX.Element | null {
  const { model, client, username, action } = props;
  const usage = usageToday(model.meta);
  const mine = usage?.people[username];
  const caps = model.meta.budgets?.per_person;
  if (!mine) {
    return null;
  }
  const lifted = usage?.lifted.includes(username) ?? false;
  const full = !lifted && reached(mine, caps).length > 0;
  return (
    <span className="jp-CopilotRoom-personUsage" data-reached={full}>
      <span className="jp-CopilotRoom-personUsageText">
        Today: {describe(mine, caps)}
        {lifted && ' · cap lifted'}
        {full && ' · cap reached'}
      </span>
      {full && can(model.me, 'manage_people') && (
        <button
          className="jp-mod-styled jp-CopilotRoom-small jp-CopilotRoom-lift"
          aria-label={`Lift the daily cap of ${displayName(username, model.person(username))} for today`}
          disabled={action.busy}
          onClick={() => void action.run(() => client.liftBudget(username))}
        >
          Lift cap
        </button>
      )}
    </span>
  );
}
