// Progress of a long operation (start, wait, connect), for every face: the CLI prints `message`
// (English); the app words `step` itself (its catalogue has a line per key) and falls back to
// `message` for steps it does not know. Params are plain values (names, ids, addresses, seconds).

export interface ProgressStep {
  key: string;
  params: Record<string, string | number>;
}

export type OnProgress = (message: string, step?: ProgressStep) => void;
