/**
 * `template` with its `{name}` placeholders filled from `params` (their own keys only); a
 * placeholder with no value stays as written. Values are inserted as plain text: every face's
 * words (app, documents, Tera Term macros) go through this one rule.
 */
export function fillTemplate(template: string, params: Readonly<Record<string, string | number>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (Object.hasOwn(params, key) ? String(params[key]) : whole));
}
