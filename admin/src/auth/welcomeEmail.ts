import { apiFetch } from '../providers/http';
import { serverMessage } from '../providers/errors';
import i18n from '../i18n/i18n';

export interface WelcomeOutcome {
  sent: boolean;
  /** The server's words: sent to whom, or why not (the password then stays as typed). */
  message: string;
  /** What the console says once the account is made: the server's words (they say the account exists), else "User created successfully". */
  toast: string;
}

const outcome = (sent: boolean, message: string): WelcomeOutcome => ({
  sent,
  message,
  toast: message || i18n.t('admin:users.created', { defaultValue: 'User created successfully' }),
});

/**
 * After an account is made in the console: the welcome email with its set-password link
 * (POST /users/{id}/welcome-email). Never throws: a failed call is an outcome "not sent" with its message.
 */
export async function sendWelcomeEmail(userId: number | string): Promise<WelcomeOutcome> {
  try {
    const res = await apiFetch<{ sent: boolean }>(`/users/${encodeURIComponent(String(userId))}/welcome-email`, { method: 'POST' });
    return outcome(Boolean(res.data?.sent), res.message ?? '');
  } catch (e) {
    return outcome(false, serverMessage(e));
  }
}
