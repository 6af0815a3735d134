import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { containsText } from '../db/contains.js';
import { keysetList, type Page } from '../db/keyset.js';
import { notFound } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';
import { pageSize, sqlText } from '../validation/list-input.js';
import { templates, type TemplateRow } from './tables.js';

const list = keysetList({ name: 'templates', table: templates, appId: templates.appId, at: templates.createdAt, id: templates.id });
const text = (max: number) => sqlText(1, max);

export const templateFilters = {
  first: z.number().int().min(1).max(200),
  after: z.string().max(512),
  search: text(200),
  status: text(50),
  category: text(50),
  language: text(20),
};

export const templateListArgs = z.object({
  appId: z.uuid(),
  first: pageSize,
  after: templateFilters.after.nullish(),
  last: pageSize,
  before: templateFilters.after.nullish(),
  search: templateFilters.search.nullish(),
  status: templateFilters.status.nullish(),
  category: templateFilters.category.nullish(),
  language: templateFilters.language.nullish(),
});

export async function listTemplates(ctx: RequestContext, args: z.output<typeof templateListArgs>): Promise<Page<TemplateRow>> {
  return list.page(ctx.runtime.database.analyticsDb, ctx.runtime.keys.cursorKeys, args, [
    args.search ? containsText(templates.name, args.search) : undefined,
    args.status ? eq(templates.status, args.status) : undefined,
    args.category ? eq(templates.category, args.category) : undefined,
    args.language ? eq(templates.language, args.language) : undefined,
  ]);
}

export async function getTemplate(ctx: RequestContext, appId: string, templateId: string): Promise<TemplateRow> {
  const [row] = await ctx.runtime.database.analyticsDb
    .select()
    .from(templates)
    .where(and(eq(templates.appId, appId), eq(templates.id, templateId)))
    .limit(1);
  if (!row) throw notFound('Template');
  return row;
}

interface Button {
  type?: string;
}

/** button_count = buttons;
 quick_reply_count = buttons of type QUICK_REPLY. */
export const buttonCount = (row: TemplateRow) => (row.buttons as Button[]).length;
export const quickReplyCount = (row: TemplateRow) => (row.buttons as Button[]).filter((b) => b.type === 'QUICK_REPLY').length;
