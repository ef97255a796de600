/** Signing the room in to GitHub Copilot from the panel (hosts, demo mode), and whose Copilot
 * seat answers once it is. The flow's address comes from `GET signin`, which only hosts may
 * read: it never travels in the shared document, so members and viewers never see it. */
import React, { useCallback, useEffect, useState } from 'react';

import { ISignIn, RoomClient } from '../api';
import { IRoomModel } from '../model';
import { maySignIn } from '../policy';
import { Refusal, useAction } from './action';
import { OneLineForm } from './oneline';

let pageClient: RoomClient | undefined;

function signInClient(): RoomClient {
  return (pageClient ??= new RoomClient());
}

/** "Copilot seat: alice" (or "Copilot login") once a host signed the room in; Sign out. */
export function CopilotSeat(props: { model: IRoomModel }): JSX.Element | null {
  const { model } = props;
  const seat = model.meta.copilot_seat;
  const action = useAction();
  if (seat === undefined || seat === null) {
    return null;
  }
  const client = signInClient();
  return (
    <span className="jp-CopilotRoom-seat">
      <span title="The Copilot login that answers this room's prompts">
        {seat ? `Copilot seat: ${seat}` : 'Copilot login'}
      </span>
      {maySignIn(model.me) && (
        <button
          type="button"
          className="jp-mod-styled jp-CopilotRoom-small"
          disabled={action.busy}
          title="Forget the runtime's Copilot login; the room goes back to the demo model"
          onClick={() => void action.run(() => client.signOut())}
        >
          Sign out
        </button>
      )}
      <Refusal action={action} />
    </span>
  );
}

/** The host-only card: "Sign in to GitHub Copilot", then GitHub's address, a place to paste
 * where the browser landed (a hub's browser cannot reach the server's 127.0.0.1), Cancel. */
export function SignInCard(props: { model: IRoomModel }): JSX.Element | null {
  const { model } = props;
  const allowed = maySignIn(model.me);
  const [flow, setFlow] = useState<ISignIn | null>(null);
  const [dismissed, setDismissed] = useDismissed(model.me?.username);
  const action = useAction();
  const client = signInClient();
  const refresh = useCallback(
    () =>
      signInClient()
        .signIn()
        .then(
          shown => setFlow(shown),
          () => setFlow(null)
        ),
    []
  );
  useEffect(() => {
    if (allowed) {
      void refresh();
    }
  }, [allowed, model.meta.agent, refresh]);
  useEffect(() => {
    if (!allowed || (flow?.state !== 'waiting' && flow?.state !== 'consent')) {
      return;
    }
    const timer = setInterval(() => void refresh(), 2000);
    return () => clearInterval(timer);
  }, [allowed, flow?.state, refresh]);
  if (!allowed || !flow || (!flow.offered && flow.state === 'idle')) {
    return null;
  }
  const act = (step: () => Promise<ISignIn>) =>
    void action.run(step).then(shown => shown && setFlow(shown));
  if (flow.state === 'idle' && dismissed) {
    return (
      <div className="jp-CopilotRoom-signinFolded">
        <button
          type="button"
          className="jp-mod-styled jp-CopilotRoom-small"
          disabled={action.busy}
          title="The room answers with the demo model until it has a Copilot login"
          onClick={() => act(() => client.beginSignIn())}
        >
          Sign in to GitHub Copilot
        </button>
        <Refusal action={action} />
      </div>
    );
  }
  if (flow.state === 'idle') {
    return (
      <section className="jp-CopilotRoom-signin" aria-label="Sign in to GitHub Copilot">
        <span className="jp-CopilotRoom-signinNote">
          Only you (hosts) see this: the room answers with the demo model until it has a Copilot
          login.
        </span>
        <div className="jp-CopilotRoom-signinActions">
          <StepButton
            label="Sign in to GitHub Copilot"
            mod="accept"
            busy={action.busy}
            onClick={() => act(() => client.beginSignIn())}
          />
          <StepButton label="Not now" busy={false} onClick={() => setDismissed(true)} />
        </div>
        <Refusal action={action} />
      </section>
    );
  }
  // The step forward, where there is one: consent to the plain-text login, or start again.
  const onward =
    flow.state === 'consent'
      ? { label: 'Allow', mod: 'warn' as const, step: () => client.allowSignIn() }
      : flow.state === 'failed'
        ? { label: 'Try again', mod: 'accept' as const, step: () => client.beginSignIn() }
        : null;
  return (
    <section
      className="jp-CopilotRoom-signin"
      data-state={flow.state}
      aria-label="Signing in to GitHub Copilot"
    >
      {flow.state === 'failed' ? (
        <p className="jp-CopilotRoom-signinError" role="alert">
          {flow.error}
        </p>
      ) : flow.state === 'consent' ? (
        <p className="jp-CopilotRoom-signinConsent" role="alert">
          GitHub signed you in, but this server has no keychain: the runtime would keep the Copilot
          login (its token) in plain text in the room&apos;s state directory on the server, readable
          by whoever can read that folder. Allow it, or cancel and sign in from a terminal (
          <code>copilot login</code>) instead.
        </p>
      ) : (
        <>
          <p>
            1.{' '}
            <a href={flow.url} target="_blank" rel="noopener noreferrer">
              Open GitHub and sign in
            </a>{' '}
            (only hosts see this card).
          </p>
          <p>
            2. GitHub then sends your browser to{' '}
            <code className="jp-CopilotRoom-signinCallback">{flow.callback}</code>. If that page
            does not load (the server is another machine), paste its whole address here:
          </p>
          <OneLineForm
            className="jp-CopilotRoom-signinReturn"
            field={{
              'aria-label': 'The address your browser landed on after GitHub',
              placeholder: 'Paste the address'
            }}
            submit="Continue"
            busy={action.busy}
            onSubmit={landed => act(() => client.returnSignIn(landed.trim()))}
          />
        </>
      )}
      <div className="jp-CopilotRoom-signinActions">
        {onward && (
          <StepButton
            label={onward.label}
            mod={onward.mod}
            busy={action.busy}
            onClick={() => act(onward.step)}
          />
        )}
        <StepButton
          label={flow.state === 'failed' ? 'Dismiss' : 'Cancel'}
          busy={action.busy}
          onClick={() => act(() => client.cancelSignIn())}
        />
      </div>
      <Refusal action={action} />
    </section>
  );
}

/** One of the card's small buttons, off while a step is on its way. */
function StepButton(props: {
  label: string;
  mod?: 'accept' | 'warn';
  busy: boolean;
  onClick: () => void;
}): JSX.Element {
  const mod = props.mod ? ` jp-mod-${props.mod}` : '';
  return (
    <button
      type="button"
      className={`jp-mod-styled${mod} jp-CopilotRoom-small`}
      disabled={props.busy}
      onClick={props.onClick}
    >
      {props.label}
    </button>
  );
}

/** Whether this host put the sign-in card away ("Not now"), kept in this browser for them:
 * the card then folds to one button. */
function useDismissed(username: string | undefined): [boolean, (on: boolean) => void] {
  const key = `jupyter-copilot-room:signin-not-now:${username ?? ''}`;
  const [dismissed, setDismissed] = useState(() => readFlag(key));
  useEffect(() => setDismissed(readFlag(key)), [key]);
  const set = (on: boolean) => {
    setDismissed(on);
    try {
      window.localStorage.setItem(key, on ? '1' : '');
    } catch {
      // storage refused (a private window): dismissed for this page only
    }
  };
  return [dismissed, set];
}

function readFlag(key: string): boolean {
  try {
    return window.localStorage.getItem(key) === '1';
  } catch {
    return false;
  }
}
