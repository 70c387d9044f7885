import type { Contact, PaymentMethod } from '../api';
import { t } from '../i18n';
import { Ltr } from '../outcome';

const digits = (v: string) => v.replace(/[^\d+]/g, '');

/** How to reach the shop: call and WhatsApp links, email, address, and its website (My shop). */
export function Contacts({ contacts, website = null }: { contacts: Contact[]; website?: string | null }) {
  // Only a web address is a link (the API accepts http(s) only; checked again here).
  const site = website && /^https?:\/\//i.test(website) ? website : null;
  if (!contacts.length && !site) return null;
  return (
    <section aria-labelledby="contacts-title" className="card">
      <h2 id="contacts-title">{t('shop.contacts')}</h2>
      <ul className="plain">
        {contacts.map((c, i) => {
          const label = c.label ?? t(`contact.${c.type}`);
          const href =
            c.type === 'phone'
              ? `tel:${digits(c.value)}`
              : c.type === 'whatsapp'
                ? `https://wa.me/${digits(c.value).replace(/^\+/, '')}`
                : c.type === 'email'
                  ? `mailto:${c.value}`
                  : null;
          return (
            <li key={i}>
              <span className="muted">
                <bdi>{label}</bdi>:{' '}
              </span>
              {/* Numbers and addresses of the web left to right; a street address in its own direction. */}
              {href ? (
                <a href={href} rel="noopener noreferrer">
                  <Ltr>{c.value}</Ltr>
                </a>
              ) : (
                <bdi>{c.value}</bdi>
              )}
            </li>
          );
        })}
        {site && (
          <li>
            <span className="muted">{t('contact.website')}: </span>
            <a href={site} rel="noopener noreferrer" target="_blank">
              <Ltr>{site.replace(/^https?:\/\//i, '').replace(/\/$/, '')}</Ltr>
            </a>
          </li>
        )}
      </ul>
    </section>
  );
}

/** How customers pay this shop. */
export function PaymentMethods({ methods }: { methods: PaymentMethod[] }) {
  if (!methods.length) return null;
  return (
    <section aria-labelledby="pay-title" className="card">
      <h2 id="pay-title">{t('shop.payment_methods')}</h2>
      <ul className="plain">
        {methods.map((m) => (
          <li key={m.id}>
            <strong>
              <bdi>{m.name}</bdi>
            </strong>
            {m.account_number && (
              <span className="muted">
                {' · '}
                <Ltr>{m.account_number}</Ltr>
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
