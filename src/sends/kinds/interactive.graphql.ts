import type { InputObjectRef } from '@pothos/core';
import type { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { zodInputFields } from '../../graphql/zod-input.js';
import { envelopeHints, fixed, graphqlInput, HeaderInput, obj, sendMutation, TextInput } from '../sends.graphql.js';

// The interactive kinds (Flow, Product List) share one message shape: envelope, type interactive,
// and an interactive part of type, header, body, footer and action; only the action differs.

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

interface InteractiveSend {
  /** The mutation's name, e.g. sendFlowMessage. */
  mutation: string;
  /** The GraphQL name prefix, e.g. Flow gives FlowInteractiveInput and FlowMessageInput. */
  prefix: string;
  /** The interactive part's type value, e.g. flow. */
  kind: string;
  interactiveSchema: z.ZodObject;
  messageSchema: z.ZodObject;
  interactiveDescription: string;
  messageDescription: string;
  headerDescription: string;
  action: { description: string; type: InputObjectRef<BuilderTypes, unknown> };
  interactiveFieldDescription: string;
  /** Fills defaults inside the action, after type and interactive.type are filled. */
  fillAction?: (interactive: Record<string, unknown>) => void;
  what: string;
}

/** Defines the interactive and message input types of an interactive kind and its send mutation. */
export function interactiveSendMutation(s: InteractiveSend) {
  const interactiveInput = builder.inputType(`${s.prefix}InteractiveInput`, {
    description: s.interactiveDescription,
    fields: (t) =>
      zodInputFields(t, s.interactiveSchema, {
        type: fixed(s.kind),
        header: { description: s.headerDescription, type: HeaderInput },
        body: { description: 'Body: text up to 1024 characters.', type: TextInput },
        footer: { description: 'Optional footer: text up to 60 characters.', type: TextInput },
        action: s.action,
      }, { nullAsAbsent: true }),
  });
  const messageInput = builder.inputType(`${s.prefix}MessageInput`, {
    description: s.messageDescription,
    fields: (t) =>
      zodInputFields(t, s.messageSchema, {
        ...envelopeHints,
        type: fixed('interactive'),
        interactive: { description: s.interactiveFieldDescription, type: interactiveInput },
      }, { nullAsAbsent: true }),
  });
  const input = graphqlInput(s.messageSchema, (raw) => {
    raw.type ??= 'interactive';
    const interactive = obj(raw.interactive);
    if (interactive) {
      interactive.type ??= s.kind;
      s.fillAction?.(interactive);
    }
  });
  sendMutation(s.mutation, messageInput, input, s.what);
}
