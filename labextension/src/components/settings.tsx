/** The room's settings a host changes while it runs (`PATCH settings`): every setting README
 * lists. A number is sent when the field is left or Enter is pressed; the room checks its
 * bounds and a refusal shows here. */
import React, { useEffect, useState } from 'react';

import { IRoomClient } from '../api';
import {
  AdmissionPolicy,
  ApprovalDecision,
  ApprovalPolicy,
  IKindPolicy,
  ISettings
} from '../types';
import { Refusal, useAction } from './action';

const POLICIES: AdmissionPolicy[] = ['ask-host', 'viewer', 'member', 'refuse'];

type NumberSetting =
  | 'permission_timeout'
  | 'question_timeout'
  | 'turn_timeout'
  | 'max_prompt_chars'
  | 'max_waiting_prompts';

const NUMBERS: { name: NumberSetting; label: string; unit: string }[] = [
  { name: 'permission_timeout', label: 'An approval waits', unit: 's' },
  { name: 'question_timeout', label: 'A question waits', unit: 's' },
  { name: 'turn_timeout', label: 'A turn may run', unit: 's' },
  { name: 'max_prompt_chars', label: 'Longest prompt', unit: 'characters' },
  { name: 'max_waiting_prompts', label: 'Waiting prompts per person', unit: '' }
];

export function RoomSettings(props: { client: IRoomClient }): JSX.Element {
  const { client } = props;
  const action = useAction();
  const { run } = action;
  const [settings, setSettings] = useState<ISettings | null>(null);
  useEffect(() => {
    void run(() => client.settings()).then(loaded => loaded && setSettings(loaded));
  }, [client, run]);
  const change = (changes: Partial<ISettings>) =>
    void run(() => client.patchSettings(changes)).then(saved => saved && setSettings(saved));
  return (
    <details className="jp-CopilotRoom-settings">
      <summary>Room settings</summary>
      {settings && (
        <>
          <PolicySelect
            label="Signed-in people nobody decided on"
            value={settings.admission}
            disabled={action.busy}
            onChange={admission => change({ admission })}
          />
          <PolicySelect
            label="Unverified guests"
            value={settings.guest_admission}
            disabled={action.busy}
            onChange={guest_admission => change({ guest_admission })}
          />
          <label className="jp-CopilotRoom-checkbox">
            <input
              type="checkbox"
              checked={settings.auto_approve_notebook_edits}
              disabled={action.busy}
              onChange={event => change({ auto_approve_notebook_edits: event.target.checked })}
            />
            The agent&apos;s notebook edits approve themselves (commands always ask)
          </label>
          <label className="jp-CopilotRoom-checkbox">
            <input
              type="checkbox"
              checked={settings.viewers_can_chat}
              disabled={action.busy}
              onChange={event => change({ viewers_can_chat: event.target.checked })}
            />
            Viewers may say things to the room (never prompts)
          </label>
          <ApprovalPolicyEditor
            key={JSON.stringify(settings.approval_policy)}
            policy={settings.approval_policy}
            disabled={action.busy}
            onChange={approval_policy => change({ approval_policy })}
          />
          {NUMBERS.map(({ name, label, unit }) => (
            <NumberField
              key={`${name}-${settings[name]}`}
              name={name}
              label={label}
              unit={unit}
              value={settings[name]}
              disabled={action.busy}
              onChange={value => change({ [name]: value })}
            />
          ))}
        </>
      )}
      <Refusal action={action} />
    </details>
  );
}

function PolicySelect(props: {
  label: string;
  value: AdmissionPolicy;
  disabled: boolean;
  onChange: (value: AdmissionPolicy) => void;
}): JSX.Element {
  return (
    <label>
      {props.label}
      <select
        className="jp-mod-styled"
        value={props.value}
        disabled={props.disabled}
        onChange={event => props.onChange(event.target.value as AdmissionPolicy)}
      >
        {POLICIES.map(policy => (
          <option key={policy}>{policy}</option>
        ))}
      </select>
    </label>
  );
}

/** A number setting; keyed by its saved value, so a refused or saved change resets the field. */
function NumberField(props: {
  name: NumberSetting;
  label: string;
  unit: string;
  value: number;
  disabled: boolean;
  onChange: (value: number) => void;
}): JSX.Element {
  const { name, label, unit, value, disabled, onChange } = props;
  const [draft, setDraft] = useState(String(value));
  const commit = () => {
    const number = Number(draft);
    if (draft.trim() && Number.isFinite(number) && number !== value) {
      onChange(number);
    } else {
      setDraft(String(value));
    }
  };
  return (
    <label className="jp-CopilotRoom-numberSetting">
      <span>
        {label}
        {unit && ` (${unit})`}
      </span>
      <input
        type="number"
        className="jp-mod-styled"
        name={name}
        min={1}
        value={draft}
        disabled={disabled}
        onChange={event => setDraft(event.target.value)}
        onBlur={commit}
        onKeyDown={event => event.key === 'Enter' && commit()}
      />
    </label>
  );
}

const DECISIONS: ApprovalDecision[] = ['ask', 'auto', 'deny', 'two'];
const WITH_RULES = ['shell', 'url'];
const EXAMPLES: Record<string, string> = {
  shell: 'git status* -> auto',
  url: 'https://docs.python.org/* -> auto'
};

/** The approval policy (docs/hosts.md, "Approval policies"): per kind a select; shell and url
 * rules as lines `pattern -> decision`, sent when the field is left. The room checks it and a
 * refusal (a bad line) shows below the settings. */
function ApprovalPolicyEditor(props: {
  policy: ApprovalPolicy;
  disabled: boolean;
  onChange: (policy: ApprovalPolicy) => void;
}): JSX.Element {
  const { policy, disabled, onChange } = props;
  const kinds = Object.keys(policy);
  const changeKind = (kind: string, changed: Partial<IKindPolicy>) =>
    onChange({ ...policy, [kind]: { ...policy[kind], ...changed } });
  return (
    <fieldset className="jp-CopilotRoom-approvalPolicy">
      <legend>Approval policy</legend>
      {kinds.map(kind => (
        <div key={kind} className="jp-CopilotRoom-approvalKind">
          <label>
            {kind}
            <select
              className="jp-mod-styled"
              value={policy[kind].default}
              disabled={disabled}
              onChange={event =>
                changeKind(kind, { default: event.target.value as ApprovalDecision })
              }
            >
              {DECISIONS.map(decision => (
                <option key={decision}>{decision}</option>
              ))}
            </select>
          </label>
          {WITH_RULES.includes(kind) && (
            <RuleLines
              kind={kind}
              rules={policy[kind].rules}
              disabled={disabled}
              onChange={lines => onChange({ ...policy, [kind]: { ...policy[kind], rules: lines } })}
            />
          )}
        </div>
      ))}
    </fieldset>
  );
}

/** Rules as text, one `pattern -> decision` a line; the server parses and checks them. */
function RuleLines(props: {
  kind: string;
  rules: IKindPolicy['rules'];
  disabled: boolean;
  onChange: (rules: IKindPolicy['rules']) => void;
}): JSX.Element {
  const saved = props.rules
    .map(rule => (typeof rule === 'string' ? rule : `${rule.pattern} -> ${rule.decision}`))
    .join('\n');
  const [text, setText] = useState(saved);
  const send = () => {
    if (text !== saved) {
      // Sent as written: the room parses `pattern -> decision` and names a bad line.
      props.onChange(text.split('\n').filter(line => line.trim()));
    }
  };
  return (
    <textarea
      className="jp-mod-styled jp-CopilotRoom-rules"
      aria-label={`${props.kind} rules, one "pattern -> decision" a line`}
      placeholder={EXAMPLES[props.kind]}
      rows={Math.max(2, props.rules.length + 1)}
      value={text}
      disabled={props.disabled}
      onChange={event => setText(event.target.value)}
      onBlur={send}
    />
  );
}
