import * as z from 'zod';

// Saved commands ("snippets"): a name, the command text, and optionally the tag an instance must
// carry for the snippet to be offered there (e.g. env=staging); without a tag it is global. A
// snippet is typed into the remote shell as text, exactly as a person would type it — nothing
// runs locally. One definition of the rules, used by the app, the settings store and the CLI.

/** Letters, digits, dot, dash and underscore; starts with a letter or digit (a CLI-friendly word). */
const SNIPPET_NAME = /^[\p{L}\p{N}][\p{L}\p{N}._-]{0,63}$/u;

// Controls other than tab and newline could drive the remote terminal (ESC sequences, ^C, ^D):
// a snippet is text, so they are refused instead of typed.
// eslint-disable-next-line no-control-regex -- names the controls a snippet may not hold
const SNIPPET_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const SnippetTagSchema = z.object({
  key: z.string().trim().min(1).max(128),
  value: z.string().max(256),
});

export const SnippetSchema = z.object({
  name: z.string().trim().regex(SNIPPET_NAME, 'a name of letters, digits, ".", "-" or "_" (up to 64)'),
  command: z
    .string()
    .max(8192)
    .refine((c) => c.trim().length > 0, 'a command')
    .refine((c) => !SNIPPET_CONTROLS.test(c), 'text without control characters (tabs and new lines are fine)'),
  /** Offered only on instances with this tag value; null = everywhere. */
  tag: SnippetTagSchema.nullable().default(null),
});
export type Snippet = z.infer<typeof SnippetSchema>;

export const SnippetListSchema = z
  .array(SnippetSchema)
  .max(500)
  .refine((list) => new Set(list.map((s) => s.name)).size === list.length, 'snippet names that are unique');

export function findSnippet(list: readonly Snippet[], name: string): Snippet | undefined {
  return list.find((s) => s.name === name);
}

/** True when the snippet is offered for an instance with these tags (global ones everywhere). */
export function snippetApplies(snippet: Snippet, tags: Readonly<Record<string, string>> | null | undefined): boolean {
  if (!snippet.tag) return true;
  return tags?.[snippet.tag.key] === snippet.tag.value;
}

/** The snippets offered for an instance (null tags: not an EC2 instance, only global ones). */
export function snippetsFor(list: readonly Snippet[], tags: Readonly<Record<string, string>> | null | undefined): Snippet[] {
  return list.filter((s) => snippetApplies(s, tags));
}

/**
 * The keystrokes that type the command into a shell: each line followed by Enter (CR, what a
 * terminal sends), so a multi-line snippet runs line by line as if typed.
 */
export function snippetKeystrokes(command: string): string {
  return command
    .replace(/\r\n|\r|\n/g, '\n')
    .replace(/\n+$/, '')
    .split('\n')
    .map((l) => `${l}\r`)
    .join('');
}
