// OpenSSH's escape for a session that never ends by itself (a serial console's getty): "~." typed
// at the start of a line closes it, "~~" sends one "~"; any other "~x" is sent as typed.

export class EscapeKeys {
  private lineStart = true;
  private tilde = false;

  /** Splits typed bytes into what goes to the remote side and whether the person asked to close. */
  feed(input: string): { send: string; close: boolean } {
    let send = '';
    for (const c of input) {
      if (this.tilde) {
        this.tilde = false;
        if (c === '.') return { send, close: true };
        send += c === '~' ? '~' : `~${c}`;
        this.lineStart = c === '\r' || c === '\n';
        continue;
      }
      if (this.lineStart && c === '~') {
        this.tilde = true;
        continue;
      }
      send += c;
      this.lineStart = c === '\r' || c === '\n';
    }
    return { send, close: false };
  }
}
