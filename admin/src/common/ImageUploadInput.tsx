import { ImageField, ImageInput, useTranslate, type ImageInputProps } from 'react-admin';
import { resolveImage } from './image';

/**
 * An image field of a form (logos, banners): JPG, PNG, GIF or WEBP, the stored path shown as its
 * preview, and the hidden file input named by the field's label for screen readers (axe: "label").
 */
export function ImageUploadInput({ source, label, ...rest }: Omit<ImageInputProps, 'children'> & { source: string; label: string }) {
  const translate = useTranslate();
  return (
    <ImageInput
      source={source}
      label={label}
      accept={{ 'image/*': ['.jpg', '.jpeg', '.png', '.gif', '.webp'] }}
      helperText="users.logo_hint"
      format={(v) => (typeof v === 'string' ? { src: resolveImage(v) } : v)}
      inputProps={{ 'aria-label': translate(label) }}
      {...rest}
    >
      <ImageField source="src" title="title" />
    </ImageInput>
  );
}
