import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { checkPhone } from '@app/contracts/phone';
import { ApiError, call, ensureSession, type Bundle, type PaymentMethod, type Provider, type Recharge } from '../api';
import { PurchaseSubmitter, type PurchaseInput } from '../purchase';
import { money, volumeLabel } from '../shop-data';
import { t } from '../i18n';
import { formatPhone, isOpen, Ltr, Name, OutcomeWords, rich, toneOf, useFollow } from '../outcome';
import { orderPath } from '../router';

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
 * Mobile money lives on one network (contracts PAYER_NETWORKS, which the API checks): the paying
 * number of a wallet is on its operator. Kept here by operator code, so the storefront does not
 * bundle the schemas.
 */
const WALLET_NETWORKS: Record<string, { network: string; code: string; prefixes: readonly string[] }> = {
  evc_plus: { network: 'Hormuud', code: 'HORMUUD', prefixes: ['61', '77', '68'] },
  zaad: { network: 'Telesom', code: 'TELESOM', prefixes: ['63'] },
  sahal: { network: 'Golis', code: 'GOLIS', prefixes: ['90'] },
  edahab: { network: 'Somtel', code: 'SOMTEL', prefixes: ['62', '65', '66'] },
};

/** An example number on a prefix, local and international: "090 5123456", "+252 90 5123456". */
export const exampleNumber = (prefix = '61') => ({ local: `0${prefix} 5123456`, intl: `+252 ${prefix} 5123456` });

/**
 * The prefixes a method's payer may use, as this shop shows them: the wallet's network, narrowed to
 * the prefixes the shop's own operator of that network lists (a shop selling Hormuud as 61 and 77
 * does not name 68). Null for a method of no network (paid in person).
 */
export function payerPrefixes(method: Pick<PaymentMethod, 'type'> | null, providers: Pick<Provider, 'code' | 'name' | 'phone_prefixes'>[]) {
  const wallet = method ? WALLET_NETWORKS[method.type] : undefined;
  if (!wallet) return null;
  const own = providers.find((p) => p.code.toUpperCase() === wallet.code || p.name === wallet.network);
  const shared = own ? wallet.prefixes.filter((x) => own.phone_prefixes.includes(x)) : [];
  return { network: wallet.network, accepted: wallet.prefixes, shown: shared.length ? shared : wallet.prefixes };
}

/** What can take the keyboard's focus inside the sheet, in order (a radio group is one stop: its checked radio). */
function focusables(root: HTMLElement): HTMLElement[] {
  const all = [
    ...root.querySelectorAll<HTMLElement>('a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea, [tabindex="0"]'),
  ];
  return all.filter((el) => {
    if (!(el instanceof HTMLInputElement) || el.type !== 'radio') return true;
    const group = all.filter((o): o is HTMLInputElement => o instanceof HTMLInputElement && o.type === 'radio' && o.name === el.name);
    return el.checked || (!group.some((o) => o.checked) && group[0] === el);
  });
}

/** A closed sheet's history entry being taken back (history.back() is asynchronous): the next sheet waits for it. */
let takingBack: Promise<void> | null = null;

/**
 * A modal sheet on a phone: focus stays inside while it is open (Tab and Shift+Tab go round), goes
 * back to what opened it when it closes, and the phone's back button closes it rather than leaving
 * the page (a history entry of its own while open; closed another way, the entry is taken back).
 * Returns `leave(path)`: go to another page from the sheet (its entry becomes that page).
 */
function useModal(dialog: React.RefObject<HTMLDivElement | null>, close: () => void, canClose: () => boolean) {
  const closeRef = useRef(close);
  closeRef.current = close;
  const canCloseRef = useRef(canClose);
  canCloseRef.current = canClose;
  const entry = useRef(false);
  // What had the focus when the sheet was drawn (the Buy button), before the sheet took it.
  const [opener] = useState(() => (document.activeElement instanceof HTMLElement ? document.activeElement : null));
  useEffect(() => {
    let live = true;
    const onPop = () => {
      if (!entry.current) return;
      // Sending: the sheet stays (its entry comes back), as the close button is off meanwhile.
      if (!canCloseRef.current()) return history.pushState({ ...(history.state ?? {}), sheet: true }, '', location.href);
      entry.current = false;
      closeRef.current();
    };
    const onKey = (e: KeyboardEvent) => {
      const root = dialog.current;
      if (!root) return;
      if (e.key === 'Escape' && canCloseRef.current()) return closeRef.current();
      if (e.key !== 'Tab') return;
      const list = focusables(root);
      if (!list.length) return;
      const [first, last] = [list[0], list[list.length - 1]];
      const at = document.activeElement;
      if (!root.contains(at) || (e.shiftKey ? at === first || at === root.querySelector('[tabindex="-1"]') : at === last)) {
        e.preventDefault();
        (e.shiftKey ? last : first).focus();
      }
    };
    // Focus that lands outside (a click on the page behind, a screen reader's jump) comes back in.
    const onFocus = (e: FocusEvent) => {
      const root = dialog.current;
      if (root && e.target instanceof Node && !root.contains(e.target)) focusables(root)[0]?.focus();
    };
    // The sheet's own entry, once the entry of a sheet just closed has been taken back.
    const start = () => {
      if (!live) return;
      history.pushState({ ...(history.state ?? {}), sheet: true }, '', location.href);
      entry.current = true;
      window.addEventListener('popstate', onPop);
    };
    if (takingBack && history.state?.sheet) void takingBack.then(start);
    else start();
    document.addEventListener('keydown', onKey);
    document.addEventListener('focusin', onFocus);
    return () => {
      live = false;
      window.removeEventListener('popstate', onPop);
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('focusin', onFocus);
      if (entry.current) {
        entry.current = false;
        if (history.state?.sheet) {
          takingBack = new Promise<void>((resolve) => {
            const done = () => {
              window.removeEventListener('popstate', done);
              takingBack = null;
              resolve();
            };
            window.addEventListener('popstate', done);
            setTimeout(done, 1000);
          });
          history.back();
        }
      }
      if (opener?.isConnected) opener.focus();
    };
  }, [dialog, opener]);
  return {
    leave: (path: string) => {
      entry.current = false;
      history.replaceState(null, '', path);
      window.dispatchEvent(new PopStateEvent('popstate'));
      window.scrollTo(0, 0);
    },
  };
}

/**
 * Buying one bundle: the number to top up (checked against the operator's prefixes while typing),
 * the paying number, the payment method and how paying goes; then what happens to the purchase
 * (approve on the phone, sending, delayed, delivered, declined with a try again, not delivered) with
 * its reference and order page. Needs the network; says so when there is none.
 */
export function PurchaseDialog({
  code,
  provider,
  providers = [provider],
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
  /** The shop's operators: which prefixes of a wallet's network the payer hint names. */
  providers?: Provider[];
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
  const [fieldErrors, setFieldErrors] = useState<Record<string, ReactNode>>({});
  // The server said this bundle is not sold here any more: nothing to pay for.
  const [gone, setGone] = useState(false);
  const [busy, setBusy] = useState(false);
  const [recharge, setRecharge] = useState<Recharge | null>(null);
  const dialog = useRef<HTMLDivElement>(null);
  // The field (or the outcome) to focus once drawn: the number on opening, a field to correct, the payer to change.
  const focusNext = useRef<string | null>('phone');
  // In the commit that draws it (not after paint): the button that was tapped is gone by then, and
  // focus must not rest on the page behind in between.
  useLayoutEffect(() => {
    const id = focusNext.current;
    const el = id ? dialog.current?.querySelector<HTMLElement>(`#${id}`) : null;
    if (!el) return;
    el.focus();
    focusNext.current = null;
  });
  const { leave } = useModal(dialog, onClose, () => !busy);
  const submitter = useMemo(
    () =>
      new PurchaseSubmitter(async (body: PurchaseInput & { idempotency_key: string }) => {
        await ensureSession(code);
        return call<Recharge>('/recharge', { dealerCode: code, method: 'POST', body, t });
      }),
    [code],
  );
  const phoneCheck = checkPhone(phone, provider.phone_prefixes);
  const method = methods.find((m) => m.id === methodId) ?? null;
  const payerNet = payerPrefixes(method, providers);
  const payerCheck = checkPhone(payerTouched ? payer : payer || phone, payerNet?.accepted ?? []);
  const phoneExample = exampleNumber(provider.phone_prefixes[0]);
  const payerExample = exampleNumber(payerNet?.shown[0] ?? provider.phone_prefixes[0]);
  // The shop's methods reloaded without the chosen one (switched off meanwhile): the first left.
  useEffect(() => {
    if (methodId !== null && !methods.some((m) => m.id === methodId)) setMethodId(methods[0]?.id ?? null);
  }, [methods, methodId]);

  const phoneMessage = (reason: string) =>
    reason === 'wrong_operator'
      ? rich('purchase.wrong_operator', { operator: provider.name, prefixes: provider.phone_prefixes.join(', ') }, ['operator'])
      : t(`purchase.phone_${reason}`);
  const payerMessage = (reason: string) =>
    reason === 'wrong_operator' && method && payerNet
      ? rich('purchase.payer_wrong_network', { method: method.name, network: payerNet.network, prefixes: payerNet.shown.join(', ') }, ['method', 'network'])
      : t(`purchase.phone_${reason}`);

  const purchase = async (input: PurchaseInput) => {
    setBusy(true);
    try {
      const created = await submitter.submit(input);
      submitter.done();
      focusNext.current = 'purchase-outcome';
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
        const wrong = PLACED.find((k) => fields[k]);
        if (wrong) focusNext.current = wrong === 'payer_phone' ? 'payer' : wrong === 'phone' ? 'phone' : null;
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
    // Each wrong number marked on its own field (its words under it), the first one focused.
    const marks: Record<string, ReactNode> = {};
    if (!phoneCheck.ok) marks.phone = phoneMessage(phoneCheck.reason);
    // An empty payer pays from the number to top up: marked only once that number is right.
    if (!payerCheck.ok && (payerTouched || phoneCheck.ok)) marks.payer_phone = payerMessage(payerCheck.reason);
    if (marks.phone || marks.payer_phone) {
      setFieldErrors(marks);
      focusNext.current = marks.phone ? 'phone' : 'payer';
      return setError(t('purchase.fix_form'));
    }
    if (!phoneCheck.ok || !payerCheck.ok || !method) return setError(t('purchase.fix_form'));
    if (!promptsPayer(method)) return setError(t('purchase.in_person', { method: method.name }));
    void purchase({ bundle_id: bundle.id, phone: phoneCheck.national, payer_phone: payerCheck.national, payment_method_id: method.id });
  };

  // The payment was declined: back to the form to pay from another number (the rest kept), focused on it.
  const changePayer = () => {
    setError(null);
    setFieldErrors({});
    setRecharge(null);
    setPayerTouched(true);
    const used = payerCheck.ok ? payerCheck.national : null;
    if (!payer && used) setPayer(formatPhone(used));
    focusNext.current = 'payer';
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
            onLeave={leave}
            onTryAgain={tryAgain}
            onChangePayer={changePayer}
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
              placeholder={phoneExample.local}
              value={phone}
              onChange={(e) => {
                setPhone(e.target.value);
                if (fieldErrors.phone) setFieldErrors(({ phone: _gone, ...rest }) => rest);
              }}
              aria-invalid={!!fieldErrors.phone || (!!phone && !phoneCheck.ok && phoneCheck.reason !== 'incomplete')}
              aria-describedby="phone-help"
            />
            <p id="phone-help" className={!fieldErrors.phone && (!phone || phoneCheck.ok || phoneCheck.reason === 'incomplete') ? 'help' : 'help error'}>
              {fieldErrors.phone ??
                (phone && !phoneCheck.ok
                  ? phoneMessage(phoneCheck.reason)
                  : rich('purchase.phone_help', {
                      prefixes: provider.phone_prefixes.join(', '),
                      example: phoneExample.local,
                      example_intl: phoneExample.intl,
                    }))}
            </p>
            <label htmlFor="payer">{t('purchase.payer')}</label>
            <input
              id="payer"
              type="tel"
              dir="ltr"
              inputMode="tel"
              autoComplete="tel"
              placeholder={phone || payerExample.local}
              value={payer}
              onChange={(e) => {
                setPayer(e.target.value);
                setPayerTouched(true);
                if (fieldErrors.payer_phone) setFieldErrors(({ payer_phone: _gone, ...rest }) => rest);
              }}
              aria-invalid={!!fieldErrors.payer_phone || (payerTouched && !!payer && !payerCheck.ok && payerCheck.reason !== 'incomplete')}
              aria-describedby="payer-help"
            />
            <p
              id="payer-help"
              className={fieldErrors.payer_phone || (payerTouched && payer && !payerCheck.ok && payerCheck.reason !== 'incomplete') ? 'help error' : 'help'}
            >
              {fieldErrors.payer_phone ??
                (payerTouched && payer && !payerCheck.ok
                  ? payerMessage(payerCheck.reason)
                  : method && payerNet
                    ? rich('purchase.payer_help_network', { method: method.name, prefixes: payerNet.shown.join(', '), example: payerExample.local }, ['method'])
                    : t('purchase.payer_help'))}
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
  onLeave,
  onTryAgain,
  onChangePayer,
}: {
  code: string;
  recharge: Recharge;
  onUpdate: (r: Recharge) => void;
  online: boolean;
  phone?: string;
  payer?: string;
  onClose: () => void;
  onLeave: (path: string) => void;
  onTryAgain: () => void;
  onChangePayer: () => void;
}) {
  const { stopped } = useFollow(code, recharge, onUpdate, online);
  const open = isOpen(recharge);
  const to = orderPath(code, recharge.reference);
  // The order page takes the sheet's place in the history (back then goes to the shop).
  const toOrder = (e: React.MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    onLeave(to);
    onClose();
  };
  return (
    <div className={`status ${toneOf(recharge)}`} id="purchase-outcome" tabIndex={-1}>
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
        <>
          <button type="button" className="primary wide" onClick={onTryAgain}>
            {t('outcome.try_again')}
          </button>
          <button type="button" className="secondary wide" onClick={onChangePayer}>
            {t('outcome.change_payer')}
          </button>
        </>
      )}
      {(!open || stopped) && (
        <button type="button" className={recharge.can_retry ? 'secondary wide' : 'primary wide'} onClick={onClose}>
          {t('common.done')}
        </button>
      )}
    </div>
  );
}
