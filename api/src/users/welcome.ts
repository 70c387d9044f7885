import { z } from 'zod';
import { mailSetPasswordLink } from '../auth/password-reset.ts';
import type { ServiceContext } from '../platform/context.ts';
import type { User } from './user.model.ts';

/** What POST /users/{id}/welcome-email answers: whether the email left, to whom and until when its link works. */
export const welcomeResponseSchema = z.object({
  sent: z.boolean(),
  to: z.string().nullable(),
  expires_at: z.string().nullable().describe('ISO 8601; null when not sent'),
});

/**
 * The welcome email of an account made in the console (docs/api-conventions.md, "Forgotten
 * password and welcome email"): a set-password link of 72 hours through the saved mail server.
 * Not sent (no mail settings, or the server refused) is an answer, not an error: the account
 * exists and its typed password works, and the console says so.
 */
export async function sendWelcomeEmail(ctx: ServiceContext, user: Pick<User, 'id' | 'name' | 'email'>) {
  const outcome = await mailSetPasswordLink(ctx, user, 'welcome');
  if (outcome.sent)
    return {
      message: 'api:users.welcome_sent',
      messageVars: { email: outcome.to },
      data: { sent: true, to: outcome.to, expires_at: outcome.expiresAt.toISOString() },
    };
  return {
    message: !outcome.configured ? 'api:users.welcome_not_configured' : 'api:users.welcome_failed',
    data: { sent: false, to: null, expires_at: null },
  };
}
