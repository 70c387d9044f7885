/**
 * The service worker (docs/product.md sections 3 and 8): /customer-sw.js?dealer={code}, then a DEALER_INFO
 * message with the dealer code and start URL. A failed registration is logged and answers false.
 */
export async function registerServiceWorker(dealerCode: string): Promise<boolean> {
  if (!('serviceWorker' in navigator)) return false;
  // Once the page has loaded: the worker's install fetches the app's files, which must not compete
  // with the first screen on a slow network.
  if (document.readyState !== 'complete') await new Promise((done) => window.addEventListener('load', done, { once: true }));
  try {
    const startUrl = `/dealer/${encodeURIComponent(dealerCode)}`;
    const reg = await navigator.serviceWorker.register(`/customer-sw.js?dealer=${encodeURIComponent(dealerCode)}`, { scope: '/dealer/' });
    const ready = await navigator.serviceWorker.ready;
    (ready.active ?? reg.active)?.postMessage({ type: 'DEALER_INFO', dealerCode, startUrl });
    return true;
  } catch (err) {
    console.error('Service worker registration failed', err);
    return false;
  }
}
