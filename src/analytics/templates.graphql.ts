import { AppRef } from '../apps/graphql.js';
import { builder } from '../graphql/builder.js';
import { filterInput, listArgs } from '../graphql/list-filter.js';
import { keysetConnection, pageArgs, pageComplexity, toConnection } from '../graphql/connection.js';
import { templates, type TemplateRow } from './tables.js';
import { buttonCount, getTemplate, listTemplates, quickReplyCount, templateFilters, templateListArgs } from './templates.service.js';
import { asNode } from '../graphql/node.js';

export const TemplateRef = builder.objectRef<TemplateRow>('Template').implement({
  description: 'A message template. Scope: analytics:read.',
  fields: (t) => ({
    templateId: t.exposeID('id', { description: 'Template id (UUID), its raw id.' }),
    appId: t.exposeID('appId', { description: 'The app of the template.' }),
    name: t.exposeString('name', { description: 'Template name.' }),
    category: t.exposeString('category', {
      description: 'Template category as the provider names it (e.g. MARKETING, UTILITY). A string, not an enum: the provider defines the set and imports keep any value.',
    }),
    language: t.exposeString('language', { description: 'Locale code.' }),
    status: t.exposeString('status', {
      description: 'Template status as the provider reports it (e.g. APPROVED, PENDING, REJECTED); only APPROVED templates can be sent. A string, not an enum: the provider defines the set and imports keep any value.',
    }),
    headerType: t.exposeString('headerType', { description: 'Header type.' }),
    headerText: t.exposeString('headerText', { description: 'May contain {{...}} tokens.' }),
    bodyText: t.exposeString('bodyText', { description: 'Contains {{n}} placeholders.' }),
    bodyVariables: t.field({
      type: 'JSON',
      description: 'Objects with index, type, example and, for named-variable templates, name.',
      resolve: (row) => row.bodyVariables,
    }),
    footerText: t.exposeString('footerText', { description: 'Footer text.' }),
    buttons: t.field({ type: 'JSON', description: 'Objects with type, text and optional url (may contain {{...}} tokens).', resolve: (row) => row.buttons }),
    providerTemplateId: t.exposeString('providerTemplateId', { description: "The provider's template id." }),
    providerStatus: t.exposeString('providerStatus', { description: 'Status at the provider.' }),
    providerRejectionReason: t.exposeString('providerRejectionReason', { description: 'Why the provider rejected it, or null.', nullable: true }),
    providerQuality: t.exposeString('providerQuality', { description: 'Quality rating at the provider.' }),
    buttonCount: t.int({ description: 'Number of buttons.', resolve: buttonCount }),
    quickReplyCount: t.int({ description: 'Buttons of type QUICK_REPLY.', resolve: quickReplyCount }),
    createdAt: t.expose('createdAt', { description: 'When it was created (ISO 8601 UTC).', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed (ISO 8601 UTC).', type: 'DateTime' }),
  }),
});

const TemplateConnection = keysetConnection('Template', TemplateRef, 'A page of templates, newest first.');

const statusDescription = 'Exact status, as the provider reports it (e.g. APPROVED): an open set, so any string up to 50 characters.';
const categoryDescription = 'Exact category, as the provider names it (e.g. UTILITY): an open set, so any string up to 50 characters.';

const TemplateFilter = filterInput('TemplateFilter', 'Which templates a list holds: every field given must match.', templateListArgs, {
  search: 'Case-insensitive substring of the name.',
  status: statusDescription,
  category: categoryDescription,
  language: 'Exact language (locale code).',
});

const templatesScope = (appId: string) => ({ $all: { scope: 'analytics:read' as const, app: appId } });

builder.queryField('templates', (t) =>
  t.field({
    type: TemplateConnection,
    description: 'Templates of an app (GET /analytics/{appId}/templates). Scope: analytics:read.',
    authScopes: (_root, args) => templatesScope(args.appId),
    complexity: pageComplexity,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      ...pageArgs(t.arg, { size: templateFilters.first, cursor: templateFilters.after }),
      search: t.arg.string({ description: 'Case-insensitive substring of the name.', validate: { schema: templateFilters.search } }),
      status: t.arg.string({ description: statusDescription, validate: { schema: templateFilters.status } }),
      category: t.arg.string({ description: categoryDescription, validate: { schema: templateFilters.category } }),
      language: t.arg.string({ description: 'Exact language (locale code).', validate: { schema: templateFilters.language } }),
      filter: t.arg({ type: TemplateFilter, description: 'The filters as one input; not together with the separate filter arguments.' }),
    },
    resolve: (_root, args, ctx) => toConnection(ctx, listTemplates(ctx, listArgs(templateListArgs, args))),
  }),
);

builder.objectField(AppRef, 'templates', (t) =>
  t.field({
    type: TemplateConnection,
    description: 'Templates of this app, newest first (created_at desc, id desc). Scope: analytics:read.',
    authScopes: (app) => templatesScope(app.id),
    complexity: pageComplexity,
    args: {
      ...pageArgs(t.arg, { size: templateFilters.first, cursor: templateFilters.after }),
      filter: t.arg({ type: TemplateFilter, description: 'Which templates; default all.' }),
    },
    resolve: (app, args, ctx) => toConnection(ctx, listTemplates(ctx, listArgs(templateListArgs, { ...args, appId: app.id }))),
  }),
);

builder.queryField('template', (t) =>
  t.field({
    type: TemplateRef,
    description: 'One template; not_found when the app has none with this id. Scope: analytics:read.',
    authScopes: (_root, args) => ({ $all: { scope: 'analytics:read', app: args.appId } }),
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), templateId: t.arg({ description: 'The template (UUID).', type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => getTemplate(ctx, args.appId, args.templateId),
  }),
);

asNode(TemplateRef, { table: templates, appId: templates.appId, id: templates.id, uuid: true, scope: 'analytics:read', appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });
