import { z } from 'zod';
import { listParams, dateParam } from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { decodeId, encodeId } from '../http/ids.ts';
import { notFound } from '../http/errors.ts';
import { MAX_PER_PAGE, DEFAULT_PER_PAGE } from '../http/list-query.ts';
import { fromDbTime, startOfZonedDay, toDbTime } from '../database/time.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { describeSubjects, type LogSubject } from '../activity-log/subjects.ts';

const logSchema = z.object({
  id: z.number().int(),
  actor: z.object({ id: z.number().int(), h_id: z.string(), name: z.string() }).nullable(),
  action: z.string(),
  subject_type: z.string().nullable(),
  subject_id: z.number().int().nullable(),
  subject: z
    .object({
      type: z.string(),
      id: z.number().int().nullable(),
      name: z.string().nullable(),
      user_type: z.string().optional(),
      dealer_id: z.number().int().optional(),
      provider_id: z.number().int().optional(),
      category_id: z.number().int().optional(),
      gone: z.boolean().optional(),
    })
    .nullable()
    .describe(
      "What the entry is about, named as people name it (a user or role name, a banner title, a sale reference, a wallet's dealer), with the ids the console links with",
    ),
  description: z.string().nullable(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  created_at: z.string(),
});
const query = z.object({
  actor_id: z.string().optional(),
  action: z.string().max(64).optional(),
  subject_type: z.string().max(64).optional(),
  subject_id: z.string().optional(),
  from: dateParam,
  to: dateParam,
  ...listParams({ sort: ['id'], q: 'Part of the description, or an IP address exactly' }),
});

const parse = (v: string | null) => {
  if (v === null || v === undefined) return null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};
const present = (r: Record<string, any>, subject: LogSubject | null) => ({
  id: Number(r.id),
  actor: r.actor_id ? { id: r.actor_id, h_id: encodeId(r.actor_id), name: r.actor_name ?? '' } : null,
  action: r.action,
  subject_type: r.subject_type ?? null,
  subject_id: r.subject_id ?? null,
  subject,
  description: r.description ?? null,
  before: parse(r.before),
  after: parse(r.after),
  ip: r.ip ?? null,
  user_agent: r.user_agent ?? null,
  created_at: fromDbTime(r.created_at)!,
});

/**
 * GET /logs: the append-only activity log (changes with their before/after, and sign-in events),
 * newest first, filtered by actor, action, subject and days. There is no route that changes it.
 */
export function logRoutes(registry: OpenApiRegistry) {
  const api = new ApiRouter(registry, '/logs', 'Logs');
  const base = (db: import('knex').Knex) =>
    db('activity_log').leftJoin('users as actors', 'actors.id', 'activity_log.actor_id').select('activity_log.*', 'actors.name as actor_name');
  api.get(
    '/',
    {
      summary: 'The activity log: filter actor_id, action, subject_type, subject_id, from, to (days), q',
      permission: 'view logs',
      query,
      list: true,
      response: logSchema,
    },
    async (req, ctx) => {
      const f = req.query as Record<string, string | undefined>;
      const { timezone } = await readCompanySettings(ctx.db);
      const qb = base(ctx.db as never);
      if (f.actor_id) qb.where('activity_log.actor_id', decodeId(f.actor_id) ?? 0);
      if (f.action) qb.where('activity_log.action', f.action);
      if (f.subject_type) qb.where('activity_log.subject_type', f.subject_type);
      if (f.subject_id) qb.where('activity_log.subject_id', Number(f.subject_id) || 0);
      if (f.from) qb.where('activity_log.created_at', '>=', toDbTime(startOfZonedDay(f.from, timezone)));
      if (f.to) qb.where('activity_log.created_at', '<', toDbTime(new Date(startOfZonedDay(f.to, timezone).getTime() + 86_400_000)));
      if (f.q) qb.where((w) => w.where('activity_log.description', 'like', `%${f.q}%`).orWhere('activity_log.ip', f.q!));
      const page = Math.min(1_000_000, Math.max(1, Math.floor(Number(f.page) || 1)));
      const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Math.floor(Number(f.per_page) || DEFAULT_PER_PAGE)));
      const countRow = await qb.clone().clearSelect().count({ n: '*' }).first();
      const total = Number((countRow as { n: number | string }).n);
      const rows = await qb
        .orderBy('activity_log.id', (f.order ?? '').toLowerCase() === 'asc' ? 'asc' : 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage);
      const subjects = await describeSubjects(ctx.db as never, rows);
      return {
        data: rows.map((r, i) => present(r, subjects[i])),
        meta: { current_page: page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
      };
    },
  );
  api.get('/:id', { summary: 'One log entry', permission: 'view logs', response: logSchema }, async (req, ctx) => {
    const row = await base(ctx.db as never)
      .where('activity_log.id', Number(req.params.id) || 0)
      .first();
    if (!row) throw notFound();
    const [subject] = await describeSubjects(ctx.db as never, [row]);
    return { data: present(row, subject) };
  });
  return api;
}
