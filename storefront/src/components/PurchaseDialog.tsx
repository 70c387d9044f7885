import { useEffect, useMemo, useRef, useState } from 'react';
import { checkPhone } from '@app/contracts/phone';
import { ApiError, call, ensureSession, type Bundle, type PaymentMethod, type Provider, type Recharge } from '../api';
import { PurchaseSubmitter, type PurchaseInput } from '../purchase';
import { fetchRecharge, money, volumeLabel } from '../shop-data';
import { t } from '../i18n';

const FINAL = new Set(['completed', 'failed', 'refunded']);

/**
 * Buying one bundle: the number to top up (checked against the operator's prefixes while typing),
 * the paying number, the payment method and its instructions, confirm; then the recharge's status
 * until it completes or fails. Needs the network; says so when there is none.
 */
export function PurchaseDialog({ code, provider, bundle, currency, methods, online, onClose, onBought }: {
  code: string;
  provider: Provider;
  bundle: Bundle;
  currency: string;
  methods: PaymentMethod[];
  online: boolean;
  onClose: () => void;
  onBought: () => void;
}) {
  const [phone, setPhone] = useState('');
  const [payer, setPayer] = useState('');
  const [payerTouched, setPayerTouched] = useState(false);
  const [methodId, setMethodId] = useState<number | null>(methods[0]?.id ?? null);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
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

  useEffect(() => {
    dialog.current?.querySelector<HTMLElement>('input, button')?.focus();
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && !busy && onClose();
    window.addEventListener('keydown', esc);
    return () => window.removeEventListener('keydown', esc);
  }, [busy, onClose]);

  // Follow the recharge until it is settled.
  useEffect(() => {
    if (!recharge || FINAL.has(recharge.status)) return;
    const timer = setTimeout(async () => {
      try {
        setRecharge(await fetchRecharge(code, recharge.id));
      } catch {
        setRecharge({ ...recharge }); // try again on the next tick
      }
    }, 2000);
    return () => clearTimeout(timer);
  }, [recharge, code]);

  const phoneMessage = (reason: string) =>
    reason === 'wrong_operator' ? t('purchase.wrong_operator', { operator: provider.name, prefixes: provider.phone_prefixes.join(', ') }) : t(`purchase.phone_${reason}`);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    setFieldErrors({});
    if (!online) return setError(t('purchase.needs_connection'));
    if (!phoneCheck.ok || !payerCheck.ok || !method) return setError(t('purchase.fix_form'));
    setBusy(true);
    try {
      const created = await submitter.submit({ bundle_id: bundle.id, phone: phoneCheck.national, payer_phone: payerCheck.national, payment_method_id: method.id });
      submitter.done();
      setRecharge(created);
      onBought();
    } catch (err) {
      if (err instanceof ApiError && Object.keys(err.errors).length) {
        setFieldErrors(Object.fromEntries(Object.entries(err.errors).map(([k, v]) => [k, v[0]])));
      }
      setError(err instanceof ApiError ? err.message : t('errors.unexpected'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="overlay" onClick={(e) => e.target === e.currentTarget && !busy && onClose()}>
      <div className="sheet" role="dialog" aria-modal="true" aria-labelledby="purchase-title" ref={dialog}>
        <div className="sheet-head">
          <h2 id="purchase-title">{t('purchase.title', { bundle: bundle.name })}</h2>
          <button type="button" className="icon-button" onClick={onClose} aria-label={t('common.close')} disabled={busy}>
            ×
          </button>
        </div>
        <p className="muted">{`${provider.name} · ${volumeLabel(bundle.data_volume_mb)} · ${t('bundle.days', { count: bundle.validity_days })} · `}<strong>{money(bundle.price, currency)}</strong></p>
        {recharge ? (
          <RechargeStatus recharge={recharge} onClose={onClose} />
        ) : (
          <form onSubmit={submit} noValidate>
            <label htmlFor="phone">{t('purchase.phone')}</label>
            <input id="phone" inputMode="tel" autoComplete="tel" placeholder="61 5123456" value={phone} onChange={(e) => setPhone(e.target.value)} aria-invalid={!!phone && !phoneCheck.ok && phoneCheck.reason !== 'incomplete'} aria-describedby="phone-help" />
            <p id="phone-help" className={!phone || phoneCheck.ok || phoneCheck.reason === 'incomplete' ? 'help' : 'help error'}>
              {fieldErrors.phone ?? (phone && !phoneCheck.ok ? phoneMessage(phoneCheck.reason) : t('purchase.phone_help', { prefixes: provider.phone_prefixes.join(', ') }))}
            </p>
            <label htmlFor="payer">{t('purchase.payer')}</label>
            <input id="payer" inputMode="tel" autoComplete="tel" placeholder={phone || '61 5123456'} value={payer} onChange={(e) => { setPayer(e.target.value); setPayerTouched(true); }} aria-describedby="payer-help" />
            <p id="payer-help" className={payerTouched && payer && !payerCheck.ok && payerCheck.reason !== 'incomplete' ? 'help error' : 'help'}>
              {fieldErrors.payer_phone ?? (payerTouched && payer && !payerCheck.ok ? phoneMessage(payerCheck.reason) : t('purchase.payer_help'))}
            </p>
            <fieldset>
              <legend>{t('purchase.method')}</legend>
              {methods.length === 0 && <p className="help error">{t('purchase.no_methods')}</p>}
              {methods.map((m) => (
                <label key={m.id} className="choice">
                  <input type="radio" name="method" checked={methodId === m.id} onChange={() => setMethodId(m.id)} />
                  <span>
                    <strong>{m.name}</strong>
                    {m.account_number && <span className="muted">{` · ${m.account_number}`}</span>}
                  </span>
                </label>
              ))}
              {method?.instructions && <p className="instructions">{method.instructions}</p>}
            </fieldset>
            {error && (
              <p className="alert" role="alert">
                {error}
              </p>
            )}
            {!online && <p className="alert">{t('purchase.needs_connection')}</p>}
            <button type="submit" className="primary wide" disabled={busy || !online}>
              {busy ? t('purchase.sending') : t('purchase.confirm', { price: money(bundle.price, currency) })}
            </button>
          </form>
        )}
      </div>
    </div>
  );
}

function RechargeStatus({ recharge, onClose }: { recharge: Recharge; onClose: () => void }) {
  const done = FINAL.has(recharge.status);
  const tone = recharge.status === 'completed' ? 'success' : done ? 'failure' : 'waiting';
  return (
    <div className={`status ${tone}`} role="status" aria-live="polite">
      <p className="status-title">{t(`status.${recharge.status}`)}</p>
      <p>{done ? (recharge.status === 'completed' ? t('status.completed_help', { phone: recharge.phone }) : (recharge.failure_reason ?? '')) : t('status.waiting_help')}</p>
      <p className="muted">{t('status.reference', { reference: recharge.reference })}</p>
      {done && (
        <button type="button" className="primary wide" onClick={onClose}>
          {t('common.done')}
        </button>
      )}
    </div>
  );
}
