import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRevealRelay } from '../../../main/reveal.js';

// Logs › Show in folder in the Electron app: the engine's answer to logs.reveal is shown in the
// file manager on its way back to the window, and only that answer.

test('a logs.reveal answer is shown in the folder and marked revealed; other answers and failures pass untouched', () => {
  const shown: string[] = [];
  const relay = createRevealRelay((p) => shown.push(p));
  relay.fromWindow({ t: 'req', id: 7, method: 'logs.reveal', params: { file: 'a.log' } });
  relay.fromWindow({ t: 'req', id: 8, method: 'logs.list', params: {} });
  relay.fromWindow({ t: 'req', id: 9, method: 'logs.reveal', params: { file: '../x' } });
  assert.deepEqual(relay.toWindow({ t: 'res', id: 7, ok: true, result: { path: '/logs/a.log', revealed: false } }), {
    t: 'res',
    id: 7,
    ok: true,
    result: { path: '/logs/a.log', revealed: true },
  });
  const list = { t: 'res' as const, id: 8, ok: true as const, result: { folder: '/logs', entries: [] } };
  assert.equal(relay.toWindow(list), list);
  const refused = { t: 'res' as const, id: 9, ok: false as const, error: { code: 'NOT_FOUND' as const, message: 'No log named ../x' } };
  assert.equal(relay.toWindow(refused), refused);
  // The same id answered again (a stale or forged response) is not acted on twice.
  relay.toWindow({ t: 'res', id: 7, ok: true, result: { path: '/etc', revealed: false } });
  assert.deepEqual(shown, ['/logs/a.log']);
  relay.fromWindow(null);
  relay.fromWindow('garbage');
});
