import pkg from '../../package.json' with { type: 'json' };

// TagSSH's own version (package.json, bundled in), recorded with every benchmark result.

export function tagsshVersion(): string {
  return pkg.version;
}
