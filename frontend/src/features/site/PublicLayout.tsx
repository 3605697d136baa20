import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { SiteFooter } from './SiteFooter';
import { usePublicConfig } from './usePublicConfig';

/** Header with the company name, the page's main landmark and the footer. */
export function PublicLayout({
  children,
  maxWidth = 'lg',
  footer = <SiteFooter />,
}: {
  children: ReactNode;
  maxWidth?: 'sm' | 'md' | 'lg';
  footer?: ReactNode;
}) {
  const { companyName } = usePublicConfig();
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      <Box component="header" sx={{ bgcolor: 'primary.main', color: 'primary.contrastText', py: 1.5 }}>
        <Container maxWidth="lg">
          <Link
            component={RouterLink}
            to="/"
            color="inherit"
            underline="none"
            sx={{ fontWeight: 700, fontSize: '1.1rem' }}
          >
            {companyName || '\u00a0'}
          </Link>
        </Container>
      </Box>
      <Container component="main" maxWidth={maxWidth} sx={{ flex: 1, py: { xs: 3, md: 5 } }}>
        {children}
      </Container>
      {footer}
    </Box>
  );
}
