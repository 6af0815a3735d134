import { parseInput } from '../errors/zod-details.js';
import { builder } from '../graphql/builder.js';
import { connectionOf, pageComplexity } from '../graphql/connection.js';
import type { TemplateRow } from './tables.js';
import { buttonCount, getTemplate, listTemplates, quickReplyCount, templateFilters as shape, templateListArgs } from './templates.service.js';

export const TemplateRef = builder.objectRef<TemplateRow>('Template').implement({
  description: 'A message template (SPEC "Template"). Scope: analytics:read.',
  fields: (t) => ({
    id: t.exposeID('id'),
    appId: t.exposeID('appId'),
    name: t.exposeString('name'),
    category: t.exposeString('category'),
    language: t.exposeString('language', { description: 'Locale code.' }),
    status: t.exposeString('status'),
    headerType: t.exposeString('headerType'),
    headerText: t.exposeString('headerText', { description: 'May contain {{...}} tokens.' }),
    bodyText: t.exposeString('bodyText', { description: 'Contains {{n}} placeholders.' }),
    bodyVariables: t.field({
      type: 'JSON',
      description: 'Objects with index, type, example and, for named-variable templates, name.',
      resolve: (row) => row.bodyVariables,
    }),
    footerText: t.exposeString('footerText'),
    buttons: t.field({ type: 'JSON', description: 'Objects with type, text and optional url (may contain {{...}} tokens).', resolve: (row) => row.buttons }),
    providerTemplateId: t.exposeString('providerTemplateId'),
    providerStatus: t.exposeString('providerStatus'),
    providerRejectionReason: t.exposeString('providerRejectionReason', { nullable: true }),
    providerQuality: t.exposeString('providerQuality'),
    buttonCount: t.int({ description: 'Number of buttons.', resolve: buttonCount }),
    quickReplyCount: t.int({ description: 'Buttons of type QUICK_REPLY.', resolve: quickReplyCount }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const TemplateConnection = connectionOf('Template', TemplateRef, 'A page of templates, newest first.');

builder.queryField('templates', (t) =>
  t.field({
    type: TemplateConnection,
    description: 'Templates of an app (GET /analytics/{appId}/templates). Scope: analytics:read.',
    authScopes: (_root, args) => ({ $all: { scope: 'analytics:read', app: args.appId } }),
    complexity: pageComplexity,
    args: {
      appId: t.arg({ type: 'UUID', required: true }),
      first: t.arg.int({ description: 'Page size, 1 to 200 (default 50).', validate: { schema: shape.first } }),
      after: t.arg.string({ validate: { schema: shape.after } }),
      search: t.arg.string({ description: 'Case-insensitive substring of the name.', validate: { schema: shape.search } }),
      status: t.arg.string({ validate: { schema: shape.status } }),
      category: t.arg.string({ validate: { schema: shape.category } }),
      language: t.arg.string({ validate: { schema: shape.language } }),
    },
    resolve: (_root, args, ctx) => listTemplates(ctx, parseInput(templateListArgs, args)),
  }),
);

builder.queryField('template', (t) =>
  t.field({
    type: TemplateRef,
    description: 'One template; not_found when the app has none with this id. Scope: analytics:read.',
    authScopes: (_root, args) => ({ $all: { scope: 'analytics:read', app: args.appId } }),
    args: { appId: t.arg({ type: 'UUID', required: true }), templateId: t.arg({ type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => getTemplate(ctx, args.appId, args.templateId),
  }),
);
