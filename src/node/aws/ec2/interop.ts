/**
 * The named exports of a dynamically imported CommonJS package. Node exposes them on the
 * namespace; inside the esbuild bundle, packages whose exports esbuild cannot see statically
 * (the AWS SDK's dist-cjs) arrive only as `default`.
 */
export function cjsExports<T extends object>(ns: T): T {
  const d = (ns as { default?: unknown }).default;
  return Object.keys(ns).length <= 1 && d && typeof d === 'object' ? (d as T) : ns;
}
