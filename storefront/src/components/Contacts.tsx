import type { Contact, PaymentMethod } from '../api';
import { t } from '../i18n';

const digits = (v: string) => v.replace(/[^\d+]/g, '');

/** How to reach the shop: call and WhatsApp links, email, address. */
export function Contacts({ contacts }: { contacts: Contact[] }) {
  if (!contacts.length) return null;
  return (
    <section aria-labelledby="contacts-title" className="card">
      <h2 id="contacts-title">{t('shop.contacts')}</h2>
      <ul className="plain">
        {contacts.map((c, i) => {
          const label = c.label ?? t(`contact.${c.type}`);
          const href =
            c.type === 'phone' ? `tel:${digits(c.value)}` : c.type === 'whatsapp' ? `https://wa.me/${digits(c.value).replace(/^\+/, '')}` : c.type === 'email' ? `mailto:${c.value}` : null;
          return (
            <li key={i}>
              <span className="muted">{label}: </span>
              {href ? (
                <a href={href} rel="noopener noreferrer">
                  {c.value}
                </a>
              ) : (
                <span>{c.value}</span>
              )}
            </li>
          );
        })}
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
            <strong>{m.name}</strong>
            {m.account_number && <span className="muted">{` · ${m.account_number}`}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
