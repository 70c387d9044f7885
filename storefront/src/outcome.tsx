import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { Money, Outcome, Recharge } from './api';
import { saveOrder } from './offline-cache';
import { fetchRecharge, money as formatMoney } from './shop-data';
import { t } from './i18n';

/**
 * What the customer is told of a purchase (contracts CUSTOMER_OUTCOMES): each outcome has its own
 * words, and what happened to the money is said only as the API knows it. The words come from
 * storefront.json (so they follow the language switch and work offline); the API's `message` is the
 * fallback for a combination without words of ours.
 */
const OUTCOMES: readonly Outcome[] = ['awaiting_payment', 'delivering', 'delayed', 'delivered', 'declined', 'not_delivered'];
const OPEN: ReadonlySet<Outcome> = new Set(['awaiting_payment', 'delivering', 'delayed']);

/** The outcome, also from an API that does not send one yet (by status). */
export function outcomeOf(r: Recharge): { outcome: Outcome; money: Money } {
  if (r.outcome) return { outcome: r.outcome, money: r.money ?? 'unknown' };
  const byStatus: Record<string, [Outcome, Money]> = {
    pending: ['awaiting_payment', 'nothing_taken'],
    processing: ['delivering', 'unknown'],
    needs_review: ['delayed', 'unknown'],
    completed: ['delivered', 'charged'],
  };
  const [outcome, money] = byStatus[r.status] ?? ['not_delivered', 'unknown'];
  return { outcome, money };
}

/** Still moving: worth asking again (a failed delivery whose money is still being confirmed too). */
export function isOpen(r: Recharge): boolean {
  const { outcome, money } = outcomeOf(r);
  return OPEN.has(outcome) || (outcome === 'not_delivered' && money === 'unknown');
}

/** Waiting on someone else (operator, payment provider or a person): polling gives up after a while. */
const isSlow = (r: Recharge) => {
  const { outcome, money } = outcomeOf(r);
  return outcome === 'delayed' || (outcome === 'not_delivered' && money === 'unknown');
};

export type Tone = 'success' | 'failure' | 'waiting';
export function toneOf(r: Recharge): Tone {
  const { outcome } = outcomeOf(r);
  return outcome === 'delivered' ? 'success' : outcome === 'declined' || outcome === 'not_delivered' ? 'failure' : 'waiting';
}

/** Numbers, amounts, phone numbers, references and codes stay left to right inside a right-to-left sentence. */
export const Ltr = ({ children }: { children: ReactNode }) => <bdi dir="ltr">{children}</bdi>;

/**
 * A name (operator, bundle, shop, category) isolated in its own direction: "1 GB Daily" inside an
 * Arabic sentence reads as written, and an Arabic name inside an English one too.
 */
export const Name = ({ children }: { children: ReactNode }) => <bdi>{children}</bdi>;

/**
 * A translated sentence whose values are isolated: numbers, amounts and references left to right;
 * the values listed in `names` (operator or bundle names, `count` for plurals is a number) in their
 * own direction.
 */
export function rich(key: string, vars: Record<string, string | number>, names: readonly string[] = []): ReactNode[] {
  const keys = Object.keys(vars).filter((k) => k !== 'count');
  const marked: Record<string, string | number> = Object.fromEntries(keys.map((n, i) => [n, `\u0001${i}\u0001`]));
  if ('count' in vars) marked.count = vars.count;
  return (
    t(key, marked)
      // \u0001 marks where a value goes: a character no translation or value contains.
      // eslint-disable-next-line no-control-regex
      .split(/\u0001(\d+)\u0001/)
      .map((part, i) => {
        if (i % 2 === 0) return part;
        const name = keys[Number(part)];
        return names.includes(name) ? <Name key={i}>{vars[name]}</Name> : <Ltr key={i}>{vars[name]}</Ltr>;
      })
  );
}

/** "615123456" -> "061 5123456", as Somali numbers are written. */
export const formatPhone = (national: string) => (/^\d{9}$/.test(national) ? `0${national.slice(0, 2)} ${national.slice(2)}` : national);

/**
 * The API's `detail` (contracts CUSTOMER_DETAILS): the payment service slow to send the prompt, or a
 * sale that failed before any payment was taken. Absent from orders kept before the API sent it.
 */
export const detailOf = (r: Recharge) => r.detail ?? null;

/** The short label of the status chip (lists, order page). */
export function StatusChip({ recharge }: { recharge: Recharge }) {
  return <span className={`chip ${toneOf(recharge)}`}>{statusLabel(recharge)}</span>;
}

/** The status chip's words (also in a shared receipt). */
export function statusLabel(recharge: Recharge): string {
  const { outcome } = outcomeOf(recharge);
  const detail = detailOf(recharge);
  return detail ? t(`chip.${detail}`) : OUTCOMES.includes(outcome) ? t(`chip.${outcome}`) : recharge.status;
}

/**
 * The outcome's title and sentences. `phone` / `payer` are the full numbers when this browser
 * knows them (the purchase dialog); else the API's partly hidden number is used and the payer is
 * not named.
 */
export function OutcomeWords({ recharge, phone, payer, following }: { recharge: Recharge; phone?: string; payer?: string; following: boolean }) {
  const { outcome, money } = outcomeOf(recharge);
  const to = phone ?? recharge.phone;
  const amount = formatMoney(recharge.amount, recharge.currency);
  const detail = detailOf(recharge);
  const lines: ReactNode[] = [];
  const moneyLine = (m: Money) =>
    m === 'nothing_taken' || m === 'returned' || m === 'reserved' || m === 'unknown' || m === 'to_be_paid_back' ? t(`outcome.money_${m}`) : null;
  // No prompt yet after a while: the payment service may not have sent it; nothing taken; wait or try later.
  if (detail === 'payment_slow') {
    lines.push(payer ? rich('outcome.payment_slow_help', { phone: payer, amount }) : rich('outcome.payment_slow_help_any', { amount }));
    lines.push(t('outcome.money_nothing_taken_yet'), t('outcome.payment_slow_todo'));
  }
  // Failed before any payment was taken: a payment that could not start, not a delivery that failed.
  else if (detail === 'payment_not_started') lines.push(t('outcome.payment_not_started_help'), t('outcome.money_nothing_taken'));
  else {
    switch (outcome) {
      case 'awaiting_payment':
        lines.push(payer ? rich('outcome.awaiting_payment_help', { phone: payer, amount }) : rich('outcome.awaiting_payment_help_any', { amount }));
        break;
      case 'delivering':
        lines.push(rich('outcome.delivering_help', { phone: to }));
        if (money === 'reserved') lines.push(moneyLine(money));
        break;
      case 'delayed':
        lines.push(t('outcome.delayed_help'));
        if (money === 'reserved') lines.push(moneyLine(money));
        break;
      case 'delivered':
        // What was bought, for which number, and what it cost (the order's own amount and currency).
        lines.push(rich('outcome.delivered_help', { bundle: recharge.bundle_name, phone: to }, ['bundle']));
        if (money === 'charged') lines.push(rich('outcome.charged', { amount }));
        // Refunded by the shop after delivery: the payment is given back (or being confirmed).
        if (money === 'returned' || money === 'unknown' || money === 'to_be_paid_back') lines.push(moneyLine(money));
        break;
      case 'declined':
        lines.push(t('outcome.declined_help'));
        if (money === 'nothing_taken') lines.push(moneyLine(money));
        break;
      case 'not_delivered':
        lines.push(
          money === 'nothing_taken' || money === 'returned' || money === 'unknown' || money === 'to_be_paid_back'
            ? moneyLine(money)
            : recharge.message || recharge.failure_reason,
        );
        break;
      default:
        lines.push(recharge.message || recharge.failure_reason);
    }
  }
  if (following) lines.push(t('outcome.updates'));
  return (
    <div role="status" aria-live="polite" className="outcome">
      <p className="status-title">{detail ? t(`outcome.${detail}`) : OUTCOMES.includes(outcome) ? t(`outcome.${outcome}`) : recharge.message}</p>
      {lines.filter(Boolean).map((line, i) => (
        <p key={i}>{line}</p>
      ))}
    </div>
  );
}

/** Polling: 2 s at first, slower each time (up to 10 s), from the start again when the outcome changes. */
export const FOLLOW_FIRST_MS = 2000;
export const FOLLOW_MAX_MS = 10_000;
export const followDelay = (attempt: number) => Math.min(FOLLOW_MAX_MS, Math.round(FOLLOW_FIRST_MS * 1.4 ** attempt));
/** After this long delayed (the operator or payment provider is being asked), the page stops asking. */
export const SLOW_GIVE_UP_MS = 3 * 60_000;
/** And after this long in all. */
export const FOLLOW_GIVE_UP_MS = 15 * 60_000;

/**
 * Follows a recharge while it is open (awaiting payment, delivering, delayed): asks the API again
 * with backoff, pauses offline, and stops after a few minutes of delay (`stopped`: say "check back
 * later"). Each answer is kept as the order's last known state for offline visits.
 */
export function useFollow(code: string, recharge: Recharge | null, onUpdate: (r: Recharge) => void, online = true) {
  const state = useRef({ id: 0 as number | null, outcome: '' as string, attempt: 0, started: 0, slowSince: null as number | null });
  const [stopped, setStopped] = useState(false);
  const [tick, setTick] = useState(0);
  const update = useRef(onUpdate);
  update.current = onUpdate;

  useEffect(() => {
    if (recharge) saveOrder(code, recharge);
  }, [code, recharge]);

  useEffect(() => {
    if (!recharge || !isOpen(recharge) || stopped || !online) return;
    const s = state.current;
    const now = Date.now();
    if (s.id !== recharge.id) Object.assign(s, { id: recharge.id, outcome: '', attempt: 0, started: now, slowSince: null });
    if (s.outcome !== recharge.outcome) Object.assign(s, { outcome: recharge.outcome, attempt: 0 });
    if (!isSlow(recharge)) s.slowSince = null;
    else s.slowSince ??= now;
    if ((s.slowSince !== null && now - s.slowSince >= SLOW_GIVE_UP_MS) || now - s.started >= FOLLOW_GIVE_UP_MS) {
      setStopped(true);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      s.attempt += 1;
      fetchRecharge(code, recharge.reference || recharge.id).then(
        (next) => {
          if (!live) return;
          update.current(next);
          setTick((n) => n + 1); // asks again even when the answer is the same object
        },
        () => live && setTick((n) => n + 1), // a dropped answer: ask again, a little later
      );
    }, followDelay(s.attempt));
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [code, recharge, stopped, online, tick]);

  const restart = useCallback(() => {
    Object.assign(state.current, { attempt: 0, started: Date.now(), slowSince: null });
    setStopped(false);
    setTick((n) => n + 1);
  }, []);
  return { stopped, restart };
}
