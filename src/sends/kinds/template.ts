import { and, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { templates } from '../../analytics/tables.js';
import type { Tx } from '../../db/client.js';
import { validationFailed, type ErrorDetail } from '../../errors/app-error.js';
import { bodyPlaceholders, hasFlowButton } from '../template-fill.js';
import { envelope, flowToken, freeForm, nonEmpty } from './common.js';

// The template send (our own design): an approved template of the app, by name and language, with
// its body placeholders filled. Works inside and outside the 24-hour window.

export const templateFields = z.strictObject({
  name: nonEmpty,
  language: z.string().regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, { message: 'must be a locale code such as en or en_US' }),
  parameters: z.array(z.string()).optional(), // body placeholder values, in order
  flow_token: flowToken.optional(), // for a template with a Flow button
  flow_action_data: freeForm.optional(),
});

export const templateMessageSchema = z.strictObject({
  ...envelope,
  type: z.literal('template'),
  template: templateFields,
});

export type TemplateMessage = z.infer<typeof templateMessageSchema>;

const invalid = (field: string, message: string) => validationFailed([{ field, code: 'invalid_value', message }]);

/** The approved template the send names, its parameters matching the body's placeholders. */
export async function approvedTemplate(tx: Tx, appId: string, payload: TemplateMessage) {
  const { name, language, parameters = [], flow_token: flowToken, flow_action_data: flowActionData } = payload.template;
  const [template] = await tx
    .select({ id: templates.id, name: templates.name, status: templates.status, bodyText: templates.bodyText, buttons: templates.buttons })
    .from(templates)
    .where(and(eq(templates.appId, appId), eq(templates.name, name), eq(templates.language, language)))
    // An approved version first, when the name was imported more than once.
    .orderBy(sql`(${templates.status} = 'APPROVED') desc`, desc(templates.updatedAt))
    .limit(1);
  if (!template) throw invalid('template.name', `this app has no template named "${name}" in language ${language}`);
  if (template.status !== 'APPROVED') {
    throw invalid('template.name', `template "${name}" (${language}) is ${template.status}; only APPROVED templates can be sent`);
  }
  const details: ErrorDetail[] = [];
  const placeholders = bodyPlaceholders(template.bodyText);
  if (parameters.length !== placeholders.length) {
    details.push({
      field: 'template.parameters',
      code: parameters.length < placeholders.length ? 'too_small' : 'too_big',
      message: `must hold ${placeholders.length} value(s), one per body placeholder${placeholders.length ? ` (${placeholders.map((p) => `{{${p}}}`).join(', ')})` : ''}; got ${parameters.length}`,
    });
  }
  const flowButton = hasFlowButton(template.buttons);
  if (flowButton && flowToken === undefined) {
    details.push({ field: 'template.flow_token', code: 'required', message: `is required: template "${name}" has a Flow button` });
  }
  if (!flowButton && flowToken !== undefined) {
    details.push({ field: 'template.flow_token', code: 'unrecognized', message: `template "${name}" has no Flow button` });
  }
  if (!flowButton && flowActionData !== undefined) {
    details.push({ field: 'template.flow_action_data', code: 'unrecognized', message: `template "${name}" has no Flow button` });
  }
  if (details.length > 0) throw validationFailed(details);
  return template;
}
