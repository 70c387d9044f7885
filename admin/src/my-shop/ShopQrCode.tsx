import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { Box, Button } from '@mui/material';
import DownloadIcon from '@mui/icons-material/DownloadOutlined';
import QRCode from 'qrcode';

/**
 * The shop link as a QR code: drawn as SVG (sharp at any size, no canvas needed), downloaded as a
 * 1024 px PNG to print on a poster or send in a chat.
 */
export function ShopQrCode({ link, code }: { link: string; code: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    QRCode.toString(link, { type: 'svg', margin: 1, errorCorrectionLevel: 'M', color: { dark: '#000000', light: '#ffffff' } })
      .then((s) => live && setSvg(s))
      .catch(() => live && setSvg(null));
    return () => {
      live = false;
    };
  }, [link]);

  const download = async () => {
    try {
      const url = await QRCode.toDataURL(link, { width: 1024, margin: 2, errorCorrectionLevel: 'M' });
      const a = document.createElement('a');
      a.href = url;
      a.download = `shop-${code}-qr.png`;
      document.body.appendChild(a);
      a.click();
      a.remove();
    } catch {
      notify('my_shop.qr_failed', { type: 'error' });
    }
  };

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1.5 }}>
      <Box
        role="img"
        aria-label={translate('my_shop.qr_label', { link })}
        data-testid="shop-qr"
        sx={{ width: 200, height: 200, bgcolor: '#fff', p: 1, borderRadius: 1, border: 1, borderColor: 'divider', '& svg': { width: '100%', height: '100%' } }}
        // The SVG comes from the qrcode package's own drawing of our link, never from user HTML.
        dangerouslySetInnerHTML={svg ? { __html: svg } : undefined}
      />
      <Button variant="outlined" startIcon={<DownloadIcon />} onClick={download} disabled={!svg}>
        {translate('my_shop.download_qr')}
      </Button>
    </Box>
  );
}
