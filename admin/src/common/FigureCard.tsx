import type { ReactNode } from 'react';
import { Card, CardContent, Typography } from '@mui/material';

/** One figure (a day's sales, a statement's opening balance): its name, the amount large, and what explains it under it. */
export function FigureCard({ title, value, children }: { title: string; value: ReactNode; children?: ReactNode }) {
  return (
    <Card variant="outlined" sx={{ height: '100%' }}>
      <CardContent>
        <Typography variant="body2" color="text.secondary" component="h3">
          {title}
        </Typography>
        <Typography variant="h5" component="p" sx={{ fontWeight: 700, overflowWrap: 'anywhere' }}>
          {value}
        </Typography>
        {children && (
          <Typography variant="body2" component="div" color="text.secondary" sx={{ mt: 0.5 }}>
            {children}
          </Typography>
        )}
      </CardContent>
    </Card>
  );
}
