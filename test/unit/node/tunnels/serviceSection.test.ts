import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppService } from '../../../../src/node/service.js';
import { tunnelManagerOf, tunnelsSection } from '../../../../src/node/tunnels/serviceSection.js';
import { jsonTunnelStore } from '../../../../src/node/tunnels/saved.js';
import { defaultSettings, type Settings } from '../../../../src/common/model/settings.js';
import { stubEngine } from '../../../support/engineStub.js';

// Tunnels outlive the windows that started them, but a window's status listener must not: every
// window that ever opened the Tunnels tab would otherwise leave one behind on the engine.

test('a window that goes away takes its tunnel-status listener with it; the manager stays', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-tunnelsec-'));
  try {
    const engine = stubEngine();
    let settings: Settings = defaultSettings();
    const service = createAppService({
      engine,
      settings: { get: () => settings, set: (s) => (settings = s) },
      sections: [tunnelsSection({ store: jsonTunnelStore(join(dir, 'tunnels.json')) })],
    });
    const manager = tunnelManagerOf(engine);
    const windows = [service.connect(() => {}), service.connect(() => {})];
    for (const w of windows) w.handlers['tunnels.list']({});
    assert.equal(manager.listenerCount('status'), 2);
    windows[0]!.dispose();
    assert.equal(manager.listenerCount('status'), 1);
    windows[1]!.dispose();
    assert.equal(manager.listenerCount('status'), 0);
    assert.equal(tunnelManagerOf(engine), manager, 'the running tunnels are the engine’s, not the window’s');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
