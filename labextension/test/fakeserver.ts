// A fake Jupyter server for the REST clients' tests: ServerConnection settings whose fetch
// records every request and answers with `answer`.
import { ServerConnection } from '@jupyterlab/services';

export type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

export function settingsAnswering(answer: Fetch): {
  serverSettings: ServerConnection.ISettings;
  requests: Request[];
} {
  const requests: Request[] = [];
  const serverSettings = ServerConnection.makeSettings({
    baseUrl: 'http://lab.test/base/',
    wsUrl: 'ws://lab.test/base/',
    token: '',
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      requests.push(new Request(input, init));
      return answer(input, init);
    }) as typeof fetch
  });
  return { serverSettings, requests };
}
