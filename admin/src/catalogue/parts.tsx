import { Avatar } from '@mui/material';
import RouterIcon from '@mui/icons-material/RouterOutlined';
import { resolveImage } from '../common/image';

export const STATUS_CHOICES = [
  { id: 'active', name: 'users.status.active' },
  { id: 'inactive', name: 'users.status.inactive' },
];

/** An operator's (or payment method's) logo, or a neutral icon when it has none. */
export function Logo({ src, size = 36, icon: Icon = RouterIcon }: { src: string | null | undefined; size?: number; icon?: typeof RouterIcon }) {
  return src ? (
    <Avatar
      src={resolveImage(src)}
      alt=""
      variant="rounded"
      sx={{ width: size, height: size, bgcolor: 'transparent' }}
      slotProps={{ img: { loading: 'lazy' } }}
    />
  ) : (
    <Avatar variant="rounded" sx={{ width: size, height: size }}>
      <Icon fontSize="small" />
    </Avatar>
  );
}

/** An unchanged image stays a URL string in the form: only a newly chosen file is sent. */
export const keepNewFileOnly = (field: string) => (d: Record<string, unknown>) =>
  typeof d[field] === 'string' || d[field] == null ? { ...d, [field]: undefined } : d;

/** "1024" MB -> "1 GB"; null -> unlimited. */
export function volumeLabel(mb: number | null, translate: (key: string, opts?: object) => string): string {
  if (mb === null) return translate('catalogue.unlimited');
  return mb >= 1024 && mb % 1024 === 0 ? `${mb / 1024} GB` : mb >= 1024 ? `${(mb / 1024).toFixed(1)} GB` : `${mb} MB`;
}
