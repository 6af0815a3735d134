// Template sends: the body's placeholders and the Flow button of a stored template (analytics'
// `templates` table).

/** `{{1}}` or `{{name}}` tokens of a body, distinct, in order of first appearance. */
export function bodyPlaceholders(bodyText: string): string[] {
  const seen: string[] = [];
  for (const match of bodyText.matchAll(/\{\{\s*([^{}\s]+)\s*\}\}/g)) {
    const token = match[1]!;
    if (!seen.includes(token)) seen.push(token);
  }
  return seen;
}

interface Button {
  type?: unknown;
  text?: unknown;
}

/** Whether the template has a Flow button (buttons[].type FLOW, case-insensitive). */
export function hasFlowButton(buttons: unknown): boolean {
  return Array.isArray(buttons) && buttons.some((b: Button) => typeof b?.type === 'string' && b.type.toUpperCase() === 'FLOW');
}
