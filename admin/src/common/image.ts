/** Profile image resolution of docs/product.md section 3. */
export const DEFAULT_USER_IMAGE = '/assets/images/default-user.svg';

export function resolveImage(value: string | null | undefined, origin: string = window.location.origin): string {
  if (!value) return `${origin}${DEFAULT_USER_IMAGE}`;
  if (/^https?:\/\//i.test(value)) return value;
  return new URL(value, origin).toString();
}
