/** The room's settings a host changes while it runs (`PATCH settings`), in a JupyterLab dialog
 * opened from the gear in the room's header: every field of `RoomSettings`, grouped, from the
 * generated `SETTINGS` (its kind, help text and bounds), so a setting added in Python shows here
 * with its editor and its help. A number is sent when the field is left or Enter is
 * pressed; the room checks its bounds and a refusal shows here. */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import React, { useEffect, useRef, useState } from 'react';

import { IRoomClient } from '../api';
import {
  APPROVAL_DECISIONS,
  APPROVAL_KINDS_WITH_RULES,
  ISettingDeclaration,
  SETTINGS
} from '../generated/declarations';
import { ApprovalDecision, ApprovalPolicy, IKindPolicy, IOfferedAgent, ISettings } from '../types';
import { choiceLabel, readableHelp } from '../policy';
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
  agent: "The room's agent (a new session; the transcript stays)",
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

/** The dialog's groups, in order; a setting no group names (one added in Python since) shows
 * under "Other", so every setting is always there. */
const GROUPS: { title: string; settings: SettingName[] }[] = [
  { title: 'The agent', settings: ['agent'] },
  { title: 'Who gets in', settings: ['admission', 'guest_admission', 'viewers_can_chat'] },
  {
    title: 'What the agent may do',
    settings: ['approval_policy', 'auto_approve_notebook_edits', 'authors_can_revert']
  },
  {
    title: 'How long things wait, how much the room takes',
    settings: [
      'permission_timeout',
      'question_timeout',
      'turn_timeout',
      'execution_timeout',
      'max_prompt_chars',
      'max_waiting_prompts'
    ]
  }
];

function groupsOf(
  agents: readonly IOfferedAgent[]
): { title: string; settings: ISettingDeclaration[] }[] {
  const named = new Set<string>(GROUPS.flatMap(group => group.settings));
  // The agent is a choice only where the server offers more than one.
  const shown = SETTINGS.filter(setting => setting.kind !== 'agent' || agents.length > 1);
  const byName = new Map(shown.map(setting => [setting.name, setting]));
  const groups = GROUPS.map(group => ({
    title: group.title,
    settings: group.settings.flatMap(name => byName.get(name) ?? [])
  }));
  const other = shown.filter(setting => !named.has(setting.name));
  return [...groups, { title: 'Other', settings: other }].filter(g => g.settings.length > 0);
}

function labelOf(name: SettingName): string {
  const words = name.replace(/_/g, ' ');
  return LABELS[name] ?? words.charAt(0).toUpperCase() + words.slice(1);
}

/** How long "Saved" stays beside a setting once the room took its change. */
const SAVED_SHOWN_MS = 3000;

/** The room's settings in a JupyterLab dialog (the gear in the room's header, hosts);
 * `agents`: those a host may choose for the room. */
export function showRoomSettings(client: IRoomClient, agents: readonly IOfferedAgent[]): void {
  void showDialog({
    title: 'Room settings',
    body: <RoomSettingsForm client={client} agents={agents} />,
    buttons: [Dialog.okButton({ label: 'Close' })]
  });
}

/** Every setting, grouped, each with its help text; a change is sent as it is made. */
function RoomSettingsForm(props: {
  client: IRoomClient;
  agents: readonly IOfferedAgent[];
}): JSX.Element {
  const { client } = props;
  const action = useAction();
  const { run } = action;
  const [settings, setSettings] = useState<ISettings | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    void run(() => client.settings()).then(loaded => loaded && setSettings(loaded));
  }, [client, run]);
  useEffect(() => {
    if (!saved) {
      return;
    }
    const timer = setTimeout(() => setSaved(null), SAVED_SHOWN_MS);
    return () => clearTimeout(timer);
  }, [saved]);
  const change = (name: string, changes: Partial<ISettings>) =>
    void run(() => client.patchSettings(changes)).then(done => {
      if (done) {
        setSettings(done);
        setSaved(name);
      }
    });
  return (
    <div className="jp-CopilotRoom-settings">
      {settings &&
        groupsOf(props.agents).map(group => (
          <section key={group.title} className="jp-CopilotRoom-settingsGroup">
            <h3 className="jp-CopilotRoom-heading">{group.title}</h3>
            {group.settings.map(setting => (
              <div key={setting.name} className="jp-CopilotRoom-setting">
                <SettingField
                  setting={setting}
                  settings={settings}
                  agents={props.agents}
                  disabled={action.busy}
                  onChange={value => change(setting.name, { [setting.name]: value })}
                />
                {saved === setting.name && (
                  <span className="jp-CopilotRoom-settingSaved" role="status">
                    Saved
                  </span>
                )}
                <p className="jp-CopilotRoom-settingHelp">
                  {readableHelp(setting.description, setting.choices)}
                </p>
              </div>
            ))}
          </section>
        ))}
      <Refusal action={action} />
    </div>
  );
}

/** One setting's editor, by its kind; it carries `data-setting` (its name) and its help text. */
function SettingField(props: {
  setting: ISettingDeclaration;
  settings: ISettings;
  agents: readonly IOfferedAgent[];
  disabled: boolean;
  onChange: (value: ISettings[SettingName]) => void;
}): JSX.Element {
  const { setting, settings, disabled, onChange } = props;
  const { name, description } = setting;
  const value = settings[name];
  switch (setting.kind) {
    case 'agent':
    case 'choice': {
      // The agent's choices are those the server offers, by title; a choice's, its own words.
      const options =
        setting.kind === 'agent'
          ? props.agents.map(agent => ({ value: agent.name, label: agent.title }))
          : (setting.choices ?? []).map(choice => ({ value: choice, label: choiceLabel(choice) }));
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
            {options.map(option => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      );
    }
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
  const changed = (text: string) => {
    const number = Number(text);
    return text.trim() && Number.isFinite(number) && number !== value ? number : null;
  };
  const sent = useRef<number | null>(null);
  const send = (number: number | null) => {
    if (number !== null && number !== sent.current) {
      sent.current = number;
      onChange(number);
    }
  };
  const commit = () => {
    const number = changed(draft);
    send(number);
    if (number === null) {
      setDraft(String(value));
    }
  };
  // Enter in a dialog's field closes the dialog (JupyterLab's dialogs submit on Enter), and
  // the field goes before it is left: what was typed is sent as it goes.
  const pending = useRef<() => void>();
  pending.current = () => send(changed(draft));
  useEffect(() => () => pending.current?.(), []);
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
                <option key={decision} value={decision}>
                  {choiceLabel(decision)}
                </option>
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
