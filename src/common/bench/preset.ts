import type * as z from 'zod';
import { AppError } from '../errors.js';
import type { Confirmation, LocalUpload, PeerAddressing, PresetDef, ScriptContext } from './types.js';
import { PREVIEW_PEER_ADDRESS } from './peerAddress.js';
import { confirmSentence, type ConfirmSay } from './confirmWords.js';

// A preset as the registry holds it. Each definition is typed by its own parameter schema; the
// registry erases that type, so the hooks that take parameters cannot be called with just any
// object. bind() validates raw parameters once, against the preset's own schema, and hands back
// the hooks with those parameters already applied: the runner and the faces never cast.

/** The hooks of a definition that take its parameters first. */
type ParamHook = 'confirmations' | 'script' | 'peerScript' | 'peerAddressing' | 'cleanup' | 'progress' | 'estimateSeconds' | 'upload' | 'mountDirs';

/** A hook whose parameters are known only to its own preset: callable only through bind() (or a cast). */
type Erased<F> = F extends (p: never, ...rest: infer R) => infer O ? (p: never, ...rest: R) => O : F;

/** A registry entry: the definition with its parameter type erased, and bind() to run it. */
export type Preset = { readonly [K in keyof PresetDef]: K extends ParamHook ? Erased<PresetDef[K]> : PresetDef[K] } & {
  /** Validates raw parameters (defaults filled in, unknown names refused) and applies them to every hook. */
  bind(raw: unknown): BoundPreset;
};

/** The peer side of a pair preset, with its parameters applied. */
export interface BoundPeer {
  script(ctx: ScriptContext): string;
  ready?: RegExp;
  addressing: PeerAddressing;
}

/** A preset with validated parameters: what the runner, the preview and the confirmation use. */
export interface BoundPreset {
  readonly preset: Preset;
  /** The validated parameters, defaults filled in: what a result records. */
  readonly params: Record<string, unknown>;
  /** Each with its English sentence (`reason`, what the CLI prints) and what it says (for the app's words). */
  confirmations(): { kind: Confirmation; reason: string; say: ConfirmSay }[];
  script(ctx: ScriptContext): string;
  /** Pair presets only. */
  peer?: BoundPeer;
  /** Extra shell run after a cancel or kill; '' when the preset needs none. */
  cleanup(ctx: ScriptContext): string;
  /** Present when the preset reads its own progress from the output. */
  progress?: (stdout: string) => number | undefined;
  estimateSeconds(): number;
  /** The local file these parameters ask to send, if any. */
  upload(): LocalUpload | undefined;
  /** The directories whose file systems a result records, by parameter ({} when none). */
  mountDirs(): Record<string, string>;
  /** The exact scripts a run would start, with a stand-in for the peer's address (chosen at run time). */
  preview(): { script: string; peerScript?: string };
}

/** The duration a preset without its own estimate is taken to last. */
const DEFAULT_ESTIMATE_SECONDS = 10;

function validate<S extends z.ZodObject>(def: PresetDef<S>, raw: unknown): z.output<S> {
  const r = def.params.safeParse(raw ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.join('.') || 'parameters';
    throw new AppError('INVALID_INPUT', `${def.id}: ${where}: ${issue?.message ?? 'invalid'}.`, `See the parameters: tagssh bench presets ${def.id}`);
  }
  const extra = Object.keys((raw as Record<string, unknown>) ?? {}).filter((k) => !(k in def.params.shape));
  if (extra.length) throw new AppError('INVALID_INPUT', `${def.id} has no parameter "${extra[0]}".`);
  return r.data;
}

/** Turns a typed definition into its registry entry. */
export function registerPreset<S extends z.ZodObject>(def: PresetDef<S>): Preset {
  const entry: Preset = {
    ...def,
    bind(raw) {
      const p = validate(def, raw);
      const peer: BoundPeer | undefined =
        def.pair && def.peerScript && def.peerAddressing
          ? { script: (ctx) => def.peerScript!(p, ctx), ...(def.peerReady ? { ready: def.peerReady } : {}), addressing: def.peerAddressing(p) }
          : undefined;
      const bound: BoundPreset = {
        preset: entry,
        params: p,
        confirmations: () => def.confirmations(p).map((c) => ({ ...c, reason: confirmSentence(c.say) })),
        script: (ctx) => def.script(p, ctx),
        ...(peer ? { peer } : {}),
        cleanup: (ctx) => def.cleanup?.(p, ctx) ?? '',
        ...(def.progress ? { progress: (stdout: string) => def.progress!(p, stdout) } : {}),
        estimateSeconds: () => def.estimateSeconds?.(p) ?? DEFAULT_ESTIMATE_SECONDS,
        upload: () => def.upload?.(p),
        mountDirs: () => def.mountDirs?.(p) ?? {},
        preview() {
          const peerAddress = def.pair ? { peerAddress: PREVIEW_PEER_ADDRESS } : {};
          const script = def.script(p, { runId: 'preview-run', runDir: '/tmp/tagssh-preview-run', ...peerAddress });
          return def.peerScript
            ? { script, peerScript: def.peerScript(p, { runId: 'preview-run-srv', runDir: '/tmp/tagssh-preview-run-srv', ...peerAddress }) }
            : { script };
        },
      };
      return bound;
    },
  };
  return entry;
}
