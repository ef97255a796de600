/** The room's settings a host changes while it runs (`PATCH settings`): every field of
 * `RoomSettings`, from the generated `SETTINGS` (its kind, help text and bounds), so a setting
 * added in Python shows here with its editor. A number is sent when the field is left or Enter is
 * pressed; the room checks its bounds and a refusal shows here. */
import React, { useEffect, useState } from 'react';

import { IRoomClient } from '../api';
import {
  APPROVAL_DECISIONS,
  APPROVAL_KINDS_WITH_RULES,
  ISettingDeclaration,
  SETTINGS,
  SettingKind
} from '../generated/declarations';
import { ApprovalDecision, ApprovalPolicy, IKindPolicy, ISettings } from '../types';
import { Refusal, useAction } from './action';

type SettingName = keyof ISettings;

/** Friendlier words than a setting's name; a setting without any shows its name. */
const LABELS: Partial<Record<SettingName, string>> = {
  admission: 'Signed-in people nobody decided on',
  guest_admission: 'Unverified guests',
  auto_approve_notebook_edits:
    "The agent's notebook edits approve themselves (commands always ask)",
  viewers_can_chat: 'Viewers may say things to the room (never prompts)',
  authors_can_revert: "Authors may revert their own turns' changes",
  approval_policy: 'Approval policy',
  permission_timeout: 'An approval waits',
  question_timeout: 'A question waits',
  turn_timeout: 'A turn may run',
  execution_timeout: 'A cell the agent runs may take',
  max_prompt_chars: 'Longest prompt',
  max_waiting_prompts: 'Waiting prompts per person'
};

/** What a number setting counts, after its label. */
const UNITS: Partial<Record<SettingName, string>> = {
  permission_timeout: 's',
  question_timeout: 's',
  turn_timeout: 's',
  execution_timeout: 's',
  max_prompt_chars: 'characters'
};

/** The form's sections, in order: a setting shows in its kind's, in `RoomSettings`' order. */
const SECTIONS: SettingKind[][] = [
  ['choice'],
  ['boolean'],
  ['approval_policy'],
  ['number', 'integer']
];

function labelOf(name: SettingName): string {
  const words = name.replace(/_/g, ' ');
  return LABELS[name] ?? words.charAt(0).toUpperCase() + words.slice(1);
}

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
      {settings &&
        SECTIONS.flatMap(kinds => SETTINGS.filter(setting => kinds.includes(setting.kind))).map(
          setting => (
            <SettingField
              key={setting.name}
              setting={setting}
              settings={settings}
              disabled={action.busy}
              onChange={value => change({ [setting.name]: value })}
            />
          )
        )}
      <Refusal action={action} />
    </details>
  );
}

/** One setting's editor, by its kind; it carries `data-setting` (its name) and its help text. */
function SettingField(props: {
  setting: ISettingDeclaration;
  settings: ISettings;
  disabled: boolean;
  onChange: (value: ISettings[SettingName]) => void;
}): JSX.Element {
  const { setting, settings, disabled, onChange } = props;
  const { name, description } = setting;
  const value = settings[name];
  switch (setting.kind) {
    case 'choice':
      return (
        <label title={description}>
          {labelOf(name)}
          <select
            className="jp-mod-styled"
            data-setting={name}
            title={description}
            value={String(value)}
            disabled={disabled}
            onChange={event => onChange(event.target.value as ISettings[SettingName])}
          >
            {(setting.choices ?? []).map(choice => (
              <option key={choice}>{choice}</option>
            ))}
          </select>
        </label>
      );
    case 'boolean':
      return (
        <label className="jp-CopilotRoom-checkbox" title={description}>
          <input
            type="checkbox"
            data-setting={name}
            title={description}
            checked={Boolean(value)}
            disabled={disabled}
            onChange={event => onChange(event.target.checked)}
          />
          {labelOf(name)}
        </label>
      );
    case 'approval_policy':
      return (
        <ApprovalPolicyEditor
          key={JSON.stringify(value)}
          name={name}
          label={labelOf(name)}
          description={description}
          policy={value as ApprovalPolicy}
          disabled={disabled}
          onChange={onChange}
        />
      );
    case 'number':
    case 'integer':
      return (
        <NumberField
          key={`${name}-${value}`}
          setting={setting}
          label={labelOf(name)}
          unit={UNITS[name] ?? ''}
          value={value as number}
          disabled={disabled}
          onChange={onChange}
        />
      );
  }
}

/** The bounds an input can say (`min`/`max` are inclusive: an integer above 0 starts at 1). */
function boundsOf(setting: ISettingDeclaration): { min?: number; max?: number } {
  const step = setting.kind === 'integer' ? 1 : 0;
  return {
    min: setting.ge ?? (setting.gt === undefined ? undefined : setting.gt + step),
    max: setting.le ?? (setting.lt === undefined ? undefined : setting.lt - step)
  };
}

/** A number setting; keyed by its saved value, so a refused or saved change resets the field. */
function NumberField(props: {
  setting: ISettingDeclaration;
  label: string;
  unit: string;
  value: number;
  disabled: boolean;
  onChange: (value: number) => void;
}): JSX.Element {
  const { setting, label, unit, value, disabled, onChange } = props;
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
    <label className="jp-CopilotRoom-numberSetting" title={setting.description}>
      <span>
        {label}
        {unit && ` (${unit})`}
      </span>
      <input
        type="number"
        className="jp-mod-styled"
        name={setting.name}
        data-setting={setting.name}
        title={setting.description}
        {...boundsOf(setting)}
        step={setting.kind === 'integer' ? 1 : 'any'}
        value={draft}
        disabled={disabled}
        onChange={event => setDraft(event.target.value)}
        onBlur={commit}
        onKeyDown={event => event.key === 'Enter' && commit()}
      />
    </label>
  );
}

const EXAMPLES: Record<string, string> = {
  shell: 'git status* -> auto',
  url: 'https://docs.python.org/* -> auto'
};

/** The approval policy (docs/hosts.md, "Approval policies"): per kind a select; shell and url
 * rules as lines `pattern -> decision`, sent when the field is left. The room checks it and a
 * refusal (a bad line) shows below the settings. */
function ApprovalPolicyEditor(props: {
  name: SettingName;
  label: string;
  description: string;
  policy: ApprovalPolicy;
  disabled: boolean;
  onChange: (policy: ApprovalPolicy) => void;
}): JSX.Element {
  const { policy, disabled, onChange } = props;
  const kinds = Object.keys(policy);
  const changeKind = (kind: string, changed: Partial<IKindPolicy>) =>
    onChange({ ...policy, [kind]: { ...policy[kind], ...changed } });
  return (
    <fieldset
      className="jp-CopilotRoom-approvalPolicy"
      data-setting={props.name}
      title={props.description}
    >
      <legend>{props.label}</legend>
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
              {APPROVAL_DECISIONS.map(decision => (
                <option key={decision}>{decision}</option>
              ))}
            </select>
          </label>
          {APPROVAL_KINDS_WITH_RULES.includes(kind) && (
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
