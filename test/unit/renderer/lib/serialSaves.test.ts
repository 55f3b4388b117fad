import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { observable } from '../../../../renderer/lib/observable.js';
import { serialSaves } from '../../../../renderer/lib/serialSaves.js';

interface S {
  user: string;
  port: number;
  log: { on: boolean };
  jump?: string;
}

/** A backend that answers each save when told to, and keeps what it was sent. */
function slowBackend() {
  const sent: S[] = [];
  const pending: Array<() => void> = [];
  let stored: S | null = null;
  const send = (next: S) =>
    new Promise<S>((resolve) => {
      sent.push(next);
      pending.push(() => resolve((stored = structuredClone(next))));
    });
  return { sent, send, answer: () => pending.shift()!(), stored: () => stored };
}

describe('serialSaves', () => {
  it('two saves built from the same settings both survive, the second applied to what the first left', async () => {
    const settings = observable<S>({ user: 'ec2-user', port: 22, log: { on: false } });
    const backend = slowBackend();
    const save = serialSaves(settings, backend.send, Promise.resolve());
    // Two places build their whole object from the settings of the moment, before either reply.
    const a = save({ ...settings.value, user: 'root' });
    const b = save({ ...settings.value, log: { on: true } });
    await new Promise((r) => setImmediate(r));
    assert.equal(backend.sent.length, 1, 'the second waits for the first');
    backend.answer();
    await a;
    await new Promise((r) => setImmediate(r));
    backend.answer();
    await b;
    assert.deepEqual(backend.stored(), { user: 'root', port: 22, log: { on: true } });
    assert.deepEqual(settings.value, { user: 'root', port: 22, log: { on: true } });
  });

  it('applies a change to the settings as saved now (another process wrote them), one level down in object fields', async () => {
    interface C {
      language: string;
      connectAs: Record<string, { user: string }>;
    }
    const settings = observable<C>({ language: 'en', connectAs: {} });
    // The CLI's import wrote i-1's choice after this window read the settings.
    let file: C = { language: 'en', connectAs: { 'i-1': { user: 'deploy' } } };
    const send = async (next: C) => (file = structuredClone(next));
    const save = serialSaves(settings, send, Promise.resolve(), async () => structuredClone(file));
    await save({ ...settings.value, connectAs: { ...settings.value.connectAs, 'i-2': { user: 'admin' } } });
    assert.deepEqual(file.connectAs, { 'i-1': { user: 'deploy' }, 'i-2': { user: 'admin' } });
    file = { ...file, connectAs: { ...file.connectAs, 'i-3': { user: 'ops' } } };
    await save({ ...settings.value, language: 'ja' });
    assert.deepEqual(file, { language: 'ja', connectAs: { 'i-1': { user: 'deploy' }, 'i-2': { user: 'admin' }, 'i-3': { user: 'ops' } } });
    const { 'i-2': _gone, ...rest } = settings.value.connectAs;
    await save({ ...settings.value, connectAs: rest });
    assert.deepEqual(file.connectAs, { 'i-1': { user: 'deploy' }, 'i-3': { user: 'ops' } });
    assert.deepEqual(settings.value, file);
  });

  it('a field the caller cleared is cleared, beside another save’s change', async () => {
    const settings = observable<S>({ user: 'a', port: 22, log: { on: false }, jump: 'bastion' });
    const backend = slowBackend();
    const save = serialSaves(settings, backend.send, Promise.resolve());
    const { jump: _cleared, ...withoutJump } = settings.value;
    const a = save(withoutJump);
    const b = save({ ...settings.value, port: 2222 });
    await new Promise((r) => setImmediate(r));
    backend.answer();
    await a;
    await new Promise((r) => setImmediate(r));
    backend.answer();
    await b;
    assert.deepEqual(backend.stored(), { user: 'a', port: 2222, log: { on: false } });
  });

  it('a failed save rejects for its caller and the next still runs', async () => {
    const settings = observable<S>({ user: 'a', port: 22, log: { on: false } });
    let calls = 0;
    const save = serialSaves(
      settings,
      async (next) => {
        calls++;
        if (next.port === 0) throw new Error('refused');
        return next;
      },
      Promise.resolve(),
    );
    await assert.rejects(save({ ...settings.value, port: 0 }), /refused/);
    await save({ ...settings.value, user: 'b' });
    assert.equal(calls, 2);
    assert.deepEqual(settings.value, { user: 'b', port: 22, log: { on: false } });
  });

  it('a save made before the saved settings are read waits for them: no saved field is overwritten with its default', async () => {
    // The page starts on defaults; the saved settings (with a key file) arrive later.
    const settings = observable<S>({ user: 'ec2-user', port: 22, log: { on: false } });
    let arrive!: () => void;
    const loaded = new Promise<void>((r) => (arrive = r)).then(() => settings.set({ user: 'ec2-user', port: 22, log: { on: false }, jump: 'bastion' }));
    const backend = slowBackend();
    const save = serialSaves(settings, backend.send, loaded);
    // A tick in Settings › Session logs, built from the defaults on screen.
    const ticked = save({ ...settings.value, log: { on: true } });
    await new Promise((r) => setImmediate(r));
    assert.equal(backend.sent.length, 0, 'nothing is sent before the saved settings are read');
    arrive();
    await new Promise((r) => setImmediate(r));
    backend.answer();
    await ticked;
    assert.deepEqual(backend.stored(), { user: 'ec2-user', port: 22, log: { on: true }, jump: 'bastion' });
  });

  it('a first read that fails does not block saves', async () => {
    const settings = observable<S>({ user: 'a', port: 22, log: { on: false } });
    const save = serialSaves(settings, async (next) => next, Promise.reject(new Error('backend down')));
    await save({ ...settings.value, user: 'b' });
    assert.equal(settings.value.user, 'b');
  });
});
