import { z } from 'zod';
import { containsEmoji, containsMarkdown } from '../text-rules.js';
import { flowToken, freeForm, interactiveMessage, isPlainObject, issue, nonEmpty, text, textHeader, whenObject } from './common.js';

// The Flow send: a WhatsApp interactive message that opens a Flow. Sent only inside the 24-hour
// window; its flow_token links the user's reply back to the send.

/** How a Flow opens: on a screen the send names, or with the first screen from the Flow's data endpoint. */
export const flowActions = ['navigate', 'data_exchange'] as const;
/** published Flows reach everyone; draft ones only numbers registered as testers. */
export const flowModes = ['published', 'draft'] as const;

export const flowActionPayload = z.strictObject({
  screen: nonEmpty.optional(), // required with navigate, checked below
  data: freeForm.optional(),
});

export const flowParameters = z
  .strictObject({
    flow_message_version: z.literal('3'),
    flow_token: flowToken,
    flow_id: nonEmpty.optional(),
    flow_name: nonEmpty.optional(),
    flow_cta: text(20)
      .refine((s) => !containsEmoji(s), { message: 'must not contain emoji', params: { code: 'invalid_value' } })
      .refine((s) => !containsMarkdown(s), {
        message: 'must not contain formatting (*, _, ~, ` or [text](url) links)',
        params: { code: 'invalid_value' },
      }),
    flow_action: z.enum(flowActions).default('navigate'),
    flow_action_payload: flowActionPayload.optional(),
    mode: z.enum(flowModes).default('published'),
  })
  .superRefine((_, ctx) => {
    // Under `when`, fields may hold invalid input: read them as unknown.
    const p = ctx.value as Record<string, unknown>;
    const hasId = p.flow_id !== undefined;
    const hasName = p.flow_name !== undefined;
    if (hasId && hasName) ctx.addIssue(issue(['flow_id'], 'give either flow_id or flow_name, not both', 'invalid_value'));
    if (!hasId && !hasName) ctx.addIssue(issue(['flow_id'], 'flow_id or flow_name is required', 'required'));

    const payload = p.flow_action_payload;
    if (p.flow_action === 'navigate') {
      if (payload === undefined) {
        ctx.addIssue(issue(['flow_action_payload'], 'is required when flow_action is navigate', 'required'));
      } else if (isPlainObject(payload) && payload.screen === undefined) {
        ctx.addIssue(issue(['flow_action_payload', 'screen'], 'is required when flow_action is navigate', 'required'));
      }
    } else if (p.flow_action === 'data_exchange' && payload !== undefined) {
      ctx.addIssue(issue(['flow_action_payload'], 'must be omitted when flow_action is data_exchange', 'unrecognized'));
    }
  }, whenObject)
  // The same rules, as the OpenAPI document states them.
  .meta({
    oneOf: [{ required: ['flow_id'] }, { required: ['flow_name'] }],
    if: { properties: { flow_action: { const: 'data_exchange' } }, required: ['flow_action'] },
    then: { not: { required: ['flow_action_payload'] } },
    else: { required: ['flow_action_payload'], properties: { flow_action_payload: { required: ['screen'] } } },
  });

export const flowAction = z.strictObject({
  name: z.literal('flow'),
  parameters: flowParameters,
});

export const { interactive: flowInteractive, message: flowMessageSchema } = interactiveMessage('flow', textHeader.optional(), flowAction);

export type FlowMessage = z.infer<typeof flowMessageSchema>;

/** The token the user's reply echoes: the send stores it, unique per app. */
export const flowTokenOf = (message: FlowMessage): string => message.interactive.action.parameters.flow_token;
