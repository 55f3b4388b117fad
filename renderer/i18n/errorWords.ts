// The shape of an error as the app words it: what the catalogues of each feature produce and
// describeError() (errors.ts) returns. Apart from errors.ts, which imports those catalogues.

/** Settings fields an error can send the user to (the settings view's focusField names). */
export type ErrorField = 'profile' | 'regions' | 'defaultUser' | 'identityFile' | 'port' | 'jumpHost' | 'tagJumpHosts';

export interface ErrorWords {
  /** What happened, in the app's words. */
  title: string;
  /** What to do next, naming the app's controls. */
  hint: string | null;
  /** The backend's description (names the host, port, file…); null when the title already says it all. */
  detail: string | null;
  /** The Settings field that fixes it, for an "Open Settings" button; null when none does. */
  field: ErrorField | null;
}
