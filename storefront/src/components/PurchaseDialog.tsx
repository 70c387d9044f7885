import { useEffect, useMemo, useRef, useState } from 'react';
import { checkPhone } from '@app/contracts/phone';
import { ApiError, call, ensureSession, type Bundle, type PaymentMethod, type Provider, type Recharge } from '../api';
import { PurchaseSubmitter, type PurchaseInput } from '../purchase';
import { money, volumeLabel } from '../shop-data';
import { t } from '../i18n';
import { formatPhone, isOpen, Ltr, Name, OutcomeWords, rich, toneOf, useFollow } from '../outcome';
import { onLinkClick, orderPath } from '../router';

/**
 * Whether a method's payer gets a PIN prompt (the API says so; data cached before it said so falls
 * back to its type). Cash and bank never prompt, whatever an answer says. With a prompt, that is the
 * one instruction shown: a dial code or a "send the amount" text beside it would have the customer
 * pay twice. Without one, the method is paid to the shop in person and cannot be bought here.
 */
export const promptsPayer = (m: Pick<PaymentMethod, 'prompts_payer' | 'type'>) => !['bank', 'cash'].includes(m.type) && (m.prompts_payer ?? true);

/** The server's field errors shown beside a field of this form; any other is said at the top of the sheet. */
const PLACED = ['phone', 'payer_phone', 'payment_method_id'];

/**
 * Buying one bundle: the number to top up (checked against the operator's prefixes while typing),
 * the paying number, the payment method and how paying goes; then what happens to the purchase
 * (approve on the phone, sending, delayed, delivered, declined with a try again, not delivered) with
 * its reference and order page. Needs the network; says so when there is none.
 */
export function PurchaseDialog({
  code,
  provider,
  bundle,
  currency,
  methods,
  online,
  onClose,
  onBought,
  onStale,
}: {
  code: string;
  provider: Provider;
  bundle: Bundle;
  currency: string;
  methods: PaymentMethod[];
  online: boolean;
  onClose: () => void;
  onBought: () => void;
  /**
   * The server refused what the page showed: the bundle or the payment method is no longer offered,
   * or the shop is closed. The shop reloads that part (the bundle then leaves the list).
   */
  onStale?: (what: 'bundle' | 'methods' | 'shop') => void;
}) {
  const [phone, setPhone] = useState('');
  const [payer, setPayer] = useState('');
  const [payerTouched, setPayerTouched] = useState(false);
  const [methodId, setMethodId] = useState<number | null>(methods[0]?.id ?? null);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  // The server said this bundle is not sold here any more: nothing to pay for.
  const [gone, setGone] = useState(false);
  const [busy, setBusy] = useState(false);
  const [recharge, setRecharge] = useState<Recharge | null>(null);
  const dialog = useRef<HTMLDivElement>(null);
  const submitter = useMemo(
    () =>
      new PurchaseSubmitter(async (body: PurchaseInput & { idempotency_key: string }) => {
        await ensureSession(code);
        return call<Recharge>('/recharge', { dealerCode: code, method: 'POST', body, t });
      }),
    [code],
  );
  const phoneCheck = checkPhone(phone, provider.phone_prefixes);
  const payerCheck = checkPhone(payerTouched ? payer : payer || phone, []);
  const method = methods.find((m) => m.id === methodId) ?? null;
  // The shop's methods reloaded without the chosen one (switched off meanwhile): the first left.
  useEffect(() => {
    if (methodId !== null && !methods.some((m) => m.id === methodId)) setMethodId(methods[0]?.id ?? null);
  }, [methods, methodId]);

  useEffect(() => {
    dialog.current?.querySelector<HTMLElement>('input, button')?.focus();
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && !busy && onClose();
    window.addEventListener('keydown', esc);
    return () => window.removeEventListener('keydown', esc);
  }, [busy, onClose]);

  const phoneMessage = (reason: string) =>
    reason === 'wrong_operator'
      ? rich('purchase.wrong_operator', { operator: provider.name, prefixes: provider.phone_prefixes.join(', ') }, ['operator'])
      : t(`purchase.phone_${reason}`);

  const purchase = async (input: PurchaseInput) => {
    setBusy(true);
    try {
      const created = await submitter.submit(input);
      submitter.done();
      setRecharge(created);
      onBought();
    } catch (err) {
      if (!(err instanceof ApiError)) setError(t('errors.unexpected'));
      else {
        const fields = Object.fromEntries(Object.entries(err.errors).map(([k, v]) => [k, v[0]]));
        setFieldErrors(fields);
        // The server's own words: beside their field, or (no field of this form) at the top, never
        // its generic "Validation failed" summary.
        const unplaced = Object.keys(fields).filter((k) => !PLACED.includes(k));
        setError(unplaced.length ? unplaced.map((k) => fields[k]).join(' ') : Object.keys(fields).length ? t('purchase.fix_form') : err.message);
        if (fields.bundle_id) {
          setGone(true);
          onStale?.('bundle');
        }
        if (fields.payment_method_id) onStale?.('methods');
        // The shop closed (or its code changed) while the page was open.
        if (err.status === 404) onStale?.('shop');
      }
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    setFieldErrors({});
    if (!online) return setError(t('purchase.needs_connection'));
    if (!phoneCheck.ok || !payerCheck.ok || !method) return setError(t('purchase.fix_form'));
    if (!promptsPayer(method)) return setError(t('purchase.in_person', { method: method.name }));
    void purchase({ bundle_id: bundle.id, phone: phoneCheck.national, payer_phone: payerCheck.national, payment_method_id: method.id });
  };

  // The payment was declined: the same bundle and numbers again, as a new purchase (a new key).
  const tryAgain = () => {
    setError(null);
    setRecharge(null);
    if (!online) return setError(t('purchase.needs_connection'));
    if (!phoneCheck.ok || !payerCheck.ok || !method) return;
    submitter.done();
    void purchase({ bundle_id: bundle.id, phone: phoneCheck.national, payer_phone: payerCheck.national, payment_method_id: method.id });
  };

  const pinPrompt = !!method && promptsPayer(method);
  const inPerson = !!method && !pinPrompt;
  const payerShown = payerCheck.ok ? formatPhone(payerCheck.national) : null;

  return (
    <div className="overlay" onClick={(e) => e.target === e.currentTarget && !busy && onClose()}>
      <div className="sheet" role="dialog" aria-modal="true" aria-labelledby="purchase-title" ref={dialog}>
        <div className="sheet-head">
          <h2 id="purchase-title">{rich('purchase.title', { bundle: bundle.name }, ['bundle'])}</h2>
          <button type="button" className="icon-button" onClick={onClose} aria-label={t('common.close')} disabled={busy}>
            ×
          </button>
        </div>
        <p className="muted">
          <Name>{provider.name}</Name>
          {' · '}
          {bundle.data_volume_mb === null ? volumeLabel(null) : <Ltr>{volumeLabel(bundle.data_volume_mb)}</Ltr>}
          {` · ${t('bundle.days', { count: bundle.validity_days })} · `}
          <strong>
            <Ltr>{money(bundle.price, currency)}</Ltr>
          </strong>
        </p>
        {recharge ? (
          <RechargeStatus
            key={recharge.id}
            code={code}
            recharge={recharge}
            onUpdate={setRecharge}
            online={online}
            phone={phoneCheck.ok ? formatPhone(phoneCheck.national) : undefined}
            payer={payerShown ?? undefined}
            onClose={onClose}
            onTryAgain={tryAgain}
          />
        ) : (
          <form onSubmit={submit} noValidate>
            <label htmlFor="phone">{t('purchase.phone')}</label>
            <input
              id="phone"
              type="tel"
              dir="ltr"
              inputMode="tel"
              autoComplete="tel"
              placeholder="61 5123456"
              value={phone}
              onChange={(e) => setPhone(e.target.value)}
              aria-invalid={!!fieldErrors.phone || (!!phone && !phoneCheck.ok && phoneCheck.reason !== 'incomplete')}
              aria-describedby="phone-help"
            />
            <p id="phone-help" className={!fieldErrors.phone && (!phone || phoneCheck.ok || phoneCheck.reason === 'incomplete') ? 'help' : 'help error'}>
              {fieldErrors.phone ??
                (phone && !phoneCheck.ok ? phoneMessage(phoneCheck.reason) : rich('purchase.phone_help', { prefixes: provider.phone_prefixes.join(', ') }))}
            </p>
            <label htmlFor="payer">{t('purchase.payer')}</label>
            <input
              id="payer"
              type="tel"
              dir="ltr"
              inputMode="tel"
              autoComplete="tel"
              placeholder={phone || '61 5123456'}
              value={payer}
              onChange={(e) => {
                setPayer(e.target.value);
                setPayerTouched(true);
              }}
              aria-invalid={!!fieldErrors.payer_phone || undefined}
              aria-describedby="payer-help"
            />
            <p
              id="payer-help"
              className={fieldErrors.payer_phone || (payerTouched && payer && !payerCheck.ok && payerCheck.reason !== 'incomplete') ? 'help error' : 'help'}
            >
              {fieldErrors.payer_phone ?? (payerTouched && payer && !payerCheck.ok ? phoneMessage(payerCheck.reason) : t('purchase.payer_help'))}
            </p>
            <fieldset>
              <legend>{t('purchase.method')}</legend>
              {methods.length === 0 && <p className="help error">{t('purchase.no_methods')}</p>}
              {fieldErrors.payment_method_id && <p className="help error">{fieldErrors.payment_method_id}</p>}
              {methods.map((m) => (
                <label key={m.id} className="choice">
                  <input type="radio" name="method" checked={methodId === m.id} onChange={() => setMethodId(m.id)} />
                  <span>
                    <strong>
                      <bdi>{m.name}</bdi>
                    </strong>
                    {m.account_number && (
                      <span className="muted">
                        {' · '}
                        <Ltr>{m.account_number}</Ltr>
                      </span>
                    )}
                  </span>
                </label>
              ))}
              {pinPrompt ? (
                <p className="instructions">{payerShown ? rich('purchase.prompt_on', { phone: payerShown }) : t('purchase.prompt_on_payer')}</p>
              ) : null}
              {inPerson && (
                <>
                  <p className="instructions">{rich('purchase.in_person', { method: method.name }, ['method'])}</p>
                  {method.instructions && (
                    <p className="help" dir="auto">
                      {method.instructions}
                    </p>
                  )}
                </>
              )}
            </fieldset>
            {error && (
              <p className="alert" role="alert">
                {error}
              </p>
            )}
            {!online && <p className="alert">{t('purchase.needs_connection')}</p>}
            <button type="submit" className="primary wide" disabled={busy || !online || inPerson || gone}>
              {busy ? t('purchase.sending') : rich('purchase.confirm', { price: money(bundle.price, currency) })}
            </button>
          </form>
        )}
      </div>
    </div>
  );
}

/** The purchase after it was sent: its outcome's words, followed until settled, with its order page. */
function RechargeStatus({
  code,
  recharge,
  onUpdate,
  online,
  phone,
  payer,
  onClose,
  onTryAgain,
}: {
  code: string;
  recharge: Recharge;
  onUpdate: (r: Recharge) => void;
  online: boolean;
  phone?: string;
  payer?: string;
  onClose: () => void;
  onTryAgain: () => void;
}) {
  const { stopped } = useFollow(code, recharge, onUpdate, online);
  const open = isOpen(recharge);
  const to = orderPath(code, recharge.reference);
  const toOrder = (e: React.MouseEvent<HTMLAnchorElement>) => {
    onClose();
    onLinkClick(e, to);
  };
  return (
    <div className={`status ${toneOf(recharge)}`}>
      <OutcomeWords recharge={recharge} phone={phone} payer={payer} following={open && !stopped && online} />
      {open && stopped && <p>{t('outcome.check_later')}</p>}
      {open && !online && <p className="note">{t('order.offline')}</p>}
      <p className="muted">{rich('outcome.reference', { reference: recharge.reference })}</p>
      <p>
        <a href={to} onClick={toOrder} className="link">
          {t('outcome.see_order')}
        </a>
      </p>
      {recharge.can_retry && (
        <button type="button" className="primary wide" onClick={onTryAgain}>
          {t('outcome.try_again')}
        </button>
      )}
      {(!open || stopped) && (
        <button type="button" className={recharge.can_retry ? 'secondary wide' : 'primary wide'} onClick={onClose}>
          {t('common.done')}
        </button>
      )}
    </div>
  );
}
