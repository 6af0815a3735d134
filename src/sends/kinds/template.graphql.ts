import { builder } from '../../graphql/builder.js';
import { envelopeFields, fixed, graphqlInput, sendMutation } from '../sends.graphql.js';
import { templateMessageSchema } from './template.js';

// The template send's input and mutation.

const TemplateInput = builder.inputType('TemplateInput', { description: 'An approved template of the app, its language and parameters.',
  fields: (t) => ({
    name: t.string({ description: 'Name of an approved template of the app.', required: true }),
    language: t.string({ required: true, description: 'Locale code, e.g. en_US.' }),
    parameters: t.stringList({ description: "Values of the body's placeholders, in order; as many as it has." }),
    flow_token: t.string({ description: "Required when the template has a Flow button; unique per send within the app." }),
    flow_action_data: t.field({ type: 'JSON', description: 'Initial data of the Flow behind the button.' }),
  }),
});
const TemplateMessageInput = builder.inputType('TemplateMessageInput', {
  description: 'A send of an approved template; works outside the 24-hour window.',
  fields: (t) => ({ ...envelopeFields(t), type: t.string({ description: fixed('template') }), template: t.field({ description: 'The template: name, language, parameters and an optional flow_token.', type: TemplateInput, required: true }) }),
});

const templateInput = graphqlInput(templateMessageSchema, (input) => {
  input.type ??= 'template';
});


sendMutation(
  'sendTemplateMessage',
  TemplateMessageInput,
  templateInput,
  'Sends an approved template, inside or outside the window; parameters must match its body placeholders; a Flow button needs a flow_token.',
);

