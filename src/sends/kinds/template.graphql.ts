import { builder } from '../../graphql/builder.js';
import { zodInputFields } from '../../graphql/zod-input.js';
import { envelopeHints, fixed, graphqlInput, sendMutation } from '../sends.graphql.js';
import { templateFields, templateMessageSchema } from './template.js';

// The template send's input and mutation.

const TemplateInput = builder.inputType('TemplateInput', {
  description: 'An approved template of the app, its language and parameters.',
  fields: (t) =>
    zodInputFields(t, templateFields, {
      name: 'Name of an approved template of the app.',
      language: 'Locale code, e.g. en_US.',
      parameters: "Values of the body's placeholders, in order; as many as it has.",
      flow_token: 'Required when the template has a Flow button; unique per send within the app.',
      flow_action_data: 'Initial data of the Flow behind the button.',
    }, { nullAsAbsent: true }),
});
const TemplateMessageInput = builder.inputType('TemplateMessageInput', {
  description: 'A send of an approved template; works outside the 24-hour window.',
  fields: (t) =>
    zodInputFields(t, templateMessageSchema, {
      ...envelopeHints,
      type: fixed('template'),
      template: { description: 'The template: name, language, parameters and an optional flow_token.', type: TemplateInput },
    }, { nullAsAbsent: true }),
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

