// The logger handed to the AWS SDK (credential chain and EC2 client). The SDK prints warnings
// such as its 10-line "Multiple credential sources detected" straight to the console when no
// logger is given; what the user sees must be TagSSH's own one-line error, so SDK chatter goes
// to the debug stream only (TAGSSH_DEBUG=1 or --debug).
//
// A class, not an object literal: the SDK falls back to console.warn for a logger whose
// constructor is named NoOpLogger.

class SdkLogger {
  debug(): void {}
  info(): void {}
  warn(...args: unknown[]): void {
    if (process.env.TAGSSH_DEBUG === '1') process.stderr.write(`[aws-sdk] ${args.map(String).join(' ')}\n`);
  }
  error(...args: unknown[]): void {
    if (process.env.TAGSSH_DEBUG === '1') process.stderr.write(`[aws-sdk] ${args.map(String).join(' ')}\n`);
  }
}

export const sdkLogger = new SdkLogger();
