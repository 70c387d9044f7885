import { useEffect, useState } from 'react';
import type { Banner } from '../api';
import { t } from '../i18n';

/** The shop's banners: one at a time, changing every 5 s unless the visitor prefers reduced motion. */
export function Banners({ banners }: { banners: Banner[] }) {
  const [index, setIndex] = useState(0);
  const reduced = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
  useEffect(() => {
    if (reduced || banners.length < 2) return;
    const timer = setInterval(() => setIndex((i) => (i + 1) % banners.length), 5000);
    return () => clearInterval(timer);
  }, [banners.length, reduced]);
  if (!banners.length) return null;
  const b = banners[index % banners.length];
  const image = (
    <img
      src={b.image}
      alt={b.title}
      width={1200}
      height={400}
      loading={index === 0 ? 'eager' : 'lazy'}
      fetchPriority={index === 0 ? 'high' : 'auto'}
      decoding="async"
    />
  );
  return (
    <section className="banners" aria-roledescription="carousel" aria-label={t('shop.offers')}>
      <div className="banner">
        {b.link_url ? (
          <a href={b.link_url} rel="noopener noreferrer">
            {image}
          </a>
        ) : (
          image
        )}
        <p className="banner-title">
          <bdi>{b.title}</bdi>
        </p>
      </div>
      {banners.length > 1 && (
        <div className="dots">
          {banners.map((x, i) => (
            <button
              key={x.id}
              type="button"
              className={i === index ? 'dot on' : 'dot'}
              aria-label={t('shop.show_offer', { n: i + 1, of: banners.length })}
              aria-current={i === index}
              onClick={() => setIndex(i)}
            />
          ))}
        </div>
      )}
    </section>
  );
}
