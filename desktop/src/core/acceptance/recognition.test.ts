import { ReachError } from '../clients/http.js';
import type { CentralClient } from '../clients/central-client.js';
import { runRecognition } from './recognition.js';
import type { RunnerDeps } from './runner.js';

/** Deps for the recognition layer with no display heard: only the panel route is read. */
function depsWith(panelRoute: CentralClient['panelRoute']): RunnerDeps {
  return {
    central: { panelRoute } as CentralClient,
    siteUrl: 'http://127.0.0.1:1',
    terminals: () => [],
    pushes: () => [],
    terminalClient: {} as RunnerDeps['terminalClient'],
    sleep: () => Promise.resolve(),
    now: () => 0,
  };
}

describe('the recognition layer reads the panel route', () => {
  it('says a refused read (403) is a super administrator’s, not a failure to read', async () => {
    const evidence = await runRecognition(
      depsWith(() => Promise.reject(new ReachError('forbidden', 403, 'forbidden'))),
    );
    expect(evidence[0]).toMatchObject({
      value: 'only a super administrator may read it: every display is checked',
    });
  });

  it('says "not readable" when the service did not answer', async () => {
    const evidence = await runRecognition(
      depsWith(() => Promise.reject(new ReachError('connection refused', null))),
    );
    expect(evidence[0]?.value).toBe('not readable: every display is checked');
  });
});
